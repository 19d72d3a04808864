package dev.projections.console;

import java.util.List;

/**
 * The charts of one projection's window, as the overview and a projection's page draw them: the backlog (pending, due,
 * failing), the refreshes per minute (and failures) across instances, and the worst instance's p99 refresh time.
 */
public final class TrendCharts {

    private final TrendWindow window;
    private final String projection;
    private final String startLabel;

    public TrendCharts(String projection, TrendWindow window) {
        this.projection = projection;
        this.window = window;
        this.startLabel = window.span() == TrendWindow.Span.DAY ? Text.of("trend.start.day") : Text.of("trend.start.hour");
    }

    public String backlog(TrendChart chart) {
        return chart.svg(Text.of("trend.backlog.title", projection, span()), Text.of("trend.unit.marks"), startLabel,
                Text.of("trend.end"), List.of(
                        new TrendChart.Series(Text.of("trend.series.pending"), "pending", window.pending()),
                        new TrendChart.Series(Text.of("trend.series.due"), "due", window.due()),
                        new TrendChart.Series(Text.of("trend.series.failing"), "failing", window.failing())));
    }

    /** The backlog's due marks alone: the overview's small line. */
    public String due(TrendChart chart) {
        return chart.svg(Text.of("trend.due.title", projection, span()), Text.of("trend.unit.marks"), startLabel,
                Text.of("trend.end"), List.of(new TrendChart.Series(Text.of("trend.series.due"), "due", window.due())));
    }

    public String rate(TrendChart chart) {
        return chart.svg(Text.of("trend.rate.title", projection, span()), Text.of("trend.unit.per-minute"), startLabel,
                Text.of("trend.end"), List.of(
                        new TrendChart.Series(Text.of("trend.series.refreshes"), "refreshes", window.perMinute())));
    }

    public String p99(TrendChart chart) {
        return chart.svg(Text.of("trend.p99.title", projection, span()), Text.of("trend.unit.ms"), startLabel,
                Text.of("trend.end"), List.of(new TrendChart.Series(Text.of("trend.series.p99"), "p99",
                        window.p99Millis())));
    }

    private String span() {
        return window.span() == TrendWindow.Span.DAY ? Text.of("trend.span.day") : Text.of("trend.span.hour");
    }
}
