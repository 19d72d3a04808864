package dev.projections.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A trend drawn as inline SVG on the server: one or more series of equally spaced values (a {@code null} is a gap: no
 * instance reported that bucket), from 0 to a rounded maximum, with the maximum and the window's ends as labels. No
 * script and no style attribute (the console's Content-Security-Policy allows neither inline): lines are coloured by
 * class from console.css, so dark mode applies. Every text is escaped; the picture has a title for screen readers that
 * says what a reader would see (latest and largest value of each series).
 */
public final class TrendChart {

    /** One line of a chart: its name (legend, title), its CSS class, and its values oldest first. */
    public record Series(String name, String cssClass, List<Double> values) {
    }

    private static final int LEFT = 56;
    private static final int BOTTOM = 16;
    private static final int TOP = 6;

    private final int width;
    private final int height;
    private final boolean labels;

    private TrendChart(int width, int height, boolean labels) {
        this.width = width;
        this.height = height;
        this.labels = labels;
    }

    /** A chart with axes labels and a legend, for a projection's page. */
    public static TrendChart full() {
        return new TrendChart(560, 130, true);
    }

    /** A small line without labels, for a row of the overview. */
    public static TrendChart spark() {
        return new TrendChart(120, 28, false);
    }

    /**
     * The SVG of {@code series} over a window described by {@code startLabel} and {@code endLabel}, values in
     * {@code unit}; {@code title} names the chart for screen readers and hovering.
     */
    public String svg(String title, String unit, String startLabel, String endLabel, List<Series> series) {
        double max = niceMax(series.stream().flatMap(s -> s.values().stream()).filter(v -> v != null)
                .mapToDouble(Double::doubleValue).max().orElse(0));
        int left = labels ? LEFT : 1;
        int bottom = labels ? BOTTOM : 1;
        int plotWidth = width - left - 2;
        int plotHeight = height - bottom - TOP;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend").append(labels ? "" : " spark")
                .append("\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                .append("\" role=\"img\"><title>").append(escape(description(title, unit, series))).append("</title>");
        svg.append("<rect class=\"plot\" x=\"").append(left).append("\" y=\"").append(TOP).append("\" width=\"")
                .append(plotWidth).append("\" height=\"").append(plotHeight).append("\"/>");
        if (labels) {
            // the unit is in the title and the caption: the scale's top is a number that fits beside the plot
            svg.append(text(left - 4, TOP + 9, "end", number(max)));
            svg.append(text(left - 4, TOP + plotHeight, "end", "0"));
            svg.append(text(left, height - 3, "start", startLabel));
            svg.append(text(left + plotWidth, height - 3, "end", endLabel));
        }
        for (Series line : series) {
            for (String points : segments(line.values(), left, plotWidth, plotHeight, max)) {
                svg.append("<polyline class=\"line ").append(escape(line.cssClass())).append("\" points=\"")
                        .append(points).append("\"/>");
            }
        }
        svg.append("</svg>");
        return svg.toString();
    }

    /** The runs of values without a gap, as SVG point lists; a lone value is drawn as a short level line. */
    private List<String> segments(List<Double> values, int left, int plotWidth, int plotHeight, double max) {
        List<String> segments = new ArrayList<>();
        int n = values.size();
        double step = n <= 1 ? plotWidth : (double) plotWidth / (n - 1);
        List<double[]> run = new ArrayList<>();
        for (int i = 0; i <= n; i++) {
            Double value = i < n ? values.get(i) : null;
            if (value != null) {
                run.add(new double[] {left + step * i, TOP + plotHeight - (max == 0 ? 0 : value / max * plotHeight)});
                continue;
            }
            if (run.size() == 1) {
                double[] only = run.get(0);
                run.add(new double[] {Math.min(left + plotWidth, only[0] + Math.max(2, step / 2)), only[1]});
            }
            if (!run.isEmpty()) {
                StringBuilder points = new StringBuilder();
                for (double[] point : run) {
                    points.append(points.length() == 0 ? "" : " ").append(coordinate(point[0])).append(',')
                            .append(coordinate(point[1]));
                }
                segments.add(points.toString());
            }
            run.clear();
        }
        return segments;
    }

    /** What the chart shows, in words: each series' latest and largest value. */
    static String description(String title, String unit, List<Series> series) {
        StringBuilder text = new StringBuilder(title);
        for (Series line : series) {
            List<Double> known = line.values().stream().filter(v -> v != null).toList();
            text.append("; ").append(line.name()).append(": ");
            if (known.isEmpty()) {
                text.append(Text.of("trend.no-data"));
            } else {
                text.append(Text.of("trend.latest-largest", number(known.get(known.size() - 1)),
                        number(known.stream().mapToDouble(Double::doubleValue).max().orElse(0)), unit).trim());
            }
        }
        return text.toString();
    }

    /** The top of the scale: the maximum rounded up to 1, 2 or 5 times a power of ten (at least 1). */
    static double niceMax(double max) {
        if (max <= 1) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * magnitude >= max) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String text(int x, int y, String anchor, String content) {
        return "<text x=\"" + x + "\" y=\"" + y + "\" text-anchor=\"" + anchor + "\">" + escape(content) + "</text>";
    }

    static String number(double value) {
        if (value == Math.rint(value)) {
            return Format.number((long) value);
        }
        return String.format(Locale.ENGLISH, value < 10 ? "%.2f" : "%.1f", value);
    }

    private static String coordinate(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
