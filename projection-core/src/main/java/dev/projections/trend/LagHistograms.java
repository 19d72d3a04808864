package dev.projections.trend;

import dev.projections.inspect.LagSummary;
import java.util.Collection;

/** The lag texts of trend rows (one per projection, minute and instance) added up into percentiles for the console. */
public final class LagHistograms {

    private LagHistograms() {
    }

    public static LagSummary summarize(Collection<String> texts) {
        DurationHistogram all = new DurationHistogram();
        texts.forEach(all::addText);
        return all.count() == 0 ? LagSummary.NONE
                : new LagSummary(all.count(), all.percentileMicros(0.5), all.percentileMicros(0.99));
    }
}
