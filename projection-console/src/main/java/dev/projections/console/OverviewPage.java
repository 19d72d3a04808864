package dev.projections.console;

import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.LagSummary;
import dev.projections.inspect.OrphanedMarks;
import dev.projections.inspect.TrendMinute;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.time.temporal.ChronoUnit;

/**
 * The overview, {@code index.xhtml} (docs/contract.md §12): every deployed projection with its marks, failures, pause
 * and rebuild, reloaded every few seconds; the actions on a projection that need no confirmation; the progress of the
 * rebuilds started here; marks of projections no instance deploys. What asks first (rebuilds, purge) is the
 * {@link RebuildDialog}.
 */
@Named("projectionsOverview")
@ViewScoped
public class OverviewPage implements Serializable {

    /** Trend rows arrive a few times a minute (each instance's sweep): the page's updates read them every 30 s. */
    static final Duration TRENDS_READ_EVERY = Duration.ofSeconds(30);

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleAdmin admin;

    @Inject
    ConsoleClock clock;

    private List<ProjectionRow> rows;
    private List<OrphanedMarks> orphans;
    private Instant checkedAt;
    private final List<String> runIds = new ArrayList<>();
    private List<RebuildLine> runs = List.of();

    private transient Map<String, List<TrendMinute>> trends;
    private transient Map<String, LagSummary> lags;
    private Instant trendsAt;

    public List<ProjectionRow> getRows() {
        if (rows == null) {
            reload();
        }
        return rows;
    }

    public List<OrphanedMarks> getOrphans() {
        if (orphans == null) {
            reload();
        }
        return orphans;
    }

    public List<RebuildLine> getRuns() {
        return runs;
    }

    public boolean isNothingWaiting() {
        return getRows().stream().allMatch(row -> row.status().pending() == 0);
    }

    /** The projections suspended for failing across many keys (or by hand), for the list with their reasons. */
    public List<ProjectionRow> getSuspended() {
        return getRows().stream().filter(ProjectionRow::isSuspended).toList();
    }

    public String getCheckedAtIso() {
        return checkedAt == null ? "" : checkedAt.toString();
    }

    public String getCheckedAt() {
        return Format.exact(checkedAt);
    }

    /** Every projection's last hour and its lag, a read each, again only when the last read is 30 s old. */
    private Map<String, List<TrendMinute>> lastHour() {
        Instant engineNow = clock.engineNow();
        if (trends == null || lags == null || trendsAt.plus(TRENDS_READ_EVERY).isBefore(engineNow)
                || engineNow.isBefore(trendsAt)) {
            Instant start = TrendWindow.start(TrendWindow.Span.HOUR, engineNow);
            trends = reads.trends(start, engineNow);
            // the hour's ended minutes: a row of the current minute is only a stopped instance's part of it
            lags = reads.lags(start, engineNow.truncatedTo(ChronoUnit.MINUTES));
            trendsAt = engineNow;
        }
        return trends;
    }

    /** Whether the row's Verify… button is enabled: the projection implements {@code Verifiable}. */
    public boolean verifiable(String projection) {
        return reads.verifiable(projection);
    }

    /** The disabled Verify… button's reason. */
    public String verifyUnavailable(String projection) {
        return Text.of("projection.verify.unavailable", projection);
    }

    /** The "Refresh" button and the page's timer: reads everything again. */
    public void reload() {
        Instant now = clock.now();
        Map<String, Long> rates = reads.refreshesPerMinute();
        Map<String, List<TrendMinute>> hour = lastHour();
        rows = reads.overview().stream().map(status -> new ProjectionRow(status, reads.rebuildable(status.projection()),
                admin.offersClear(status.projection()), rates.getOrDefault(status.projection(), 0L), now)
                .withTrends(new TrendCharts(status.projection(), TrendWindow.of(TrendWindow.Span.HOUR, trendsAt,
                        hour.getOrDefault(status.projection(), List.of()))))
                .withLag(lags.getOrDefault(status.projection(), LagSummary.NONE),
                        reads.freshnessObjective(status.projection())))
                .toList();
        orphans = reads.orphaned();
        runs = runIds.stream().map(id -> new RebuildLine(reads.rebuildProgress(id), now)).toList();
        checkedAt = now;
    }

    /** The runs the dialog started: the page follows their progress from now on. */
    void follow(List<String> started) {
        runIds.addAll(started);
    }

    public void pause(String projection) {
        Text.act(() -> admin.pause(projection), Text.of("overview.paused", projection));
        reload();
    }

    public void resume(String projection) {
        Text.act(() -> admin.resume(projection), Text.of("overview.resumed", projection));
        reload();
    }

    public void retryFailed(String projection) {
        Text.act(() -> admin.retryFailed(projection), retried -> Text.of("action.retried", retried, projection));
        reload();
    }
}
