package dev.projections.bench;

import java.util.ArrayList;
import java.util.List;

/** One figure measured once per run: its min, median and max over the runs. */
public final class Series {

    private final List<Double> values = new ArrayList<>();

    public void add(double value) {
        values.add(value);
    }

    public List<Double> values() {
        return List.copyOf(values);
    }

    public double median() {
        return quantile(values, 0.5);
    }

    public double min() {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    public double max() {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** "median (min–max)", or the one value of a single run, in {@code format}. */
    public String render(String format) {
        if (values.isEmpty()) {
            return "-";
        }
        if (values.size() == 1) {
            return format.formatted(values.get(0));
        }
        return format.formatted(median()) + " (" + format.formatted(min()) + "–" + format.formatted(max()) + ")";
    }

    /** Nearest-rank quantile (0 < q ≤ 1); for two values the median is their mean. */
    public static double quantile(List<Double> values, double q) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        if (q == 0.5 && sorted.size() % 2 == 0) {
            return (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        }
        int rank = (int) Math.ceil(q * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    /**
     * {@code ours ÷ bound} taken run by run (both were measured side by side in the same run, so a slow spell of the
     * machine cancels out), rendered as the median (min–max) of those ratios.
     */
    public static String ratio(Series ours, Series bound) {
        if (ours.values.size() != bound.values.size()) {
            throw new IllegalArgumentException("ratio of " + ours.values.size() + " runs to " + bound.values.size());
        }
        Series ratios = new Series();
        for (int i = 0; i < ours.values.size(); i++) {
            ratios.add(ours.values.get(i) / bound.values.get(i));
        }
        return ratios.render("%.2f");
    }
}
