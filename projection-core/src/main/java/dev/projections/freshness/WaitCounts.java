package dev.projections.freshness;

import dev.projections.RefreshWait;
import dev.projections.RefreshWait.Result;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** How many read-your-writes waits ended with each result, and their time waited in all (the meter {@code projection.await}). */
final class WaitCounts {

    private final Map<Result, LongAdder> counts = new EnumMap<>(Result.class);
    private final Map<Result, LongAdder> nanos = new EnumMap<>(Result.class);

    WaitCounts() {
        for (Result result : Result.values()) {
            counts.put(result, new LongAdder());
            nanos.put(result, new LongAdder());
        }
    }

    /** Counts {@code wait} and returns it. */
    RefreshWait ended(RefreshWait wait) {
        counts.get(wait.result()).increment();
        nanos.get(wait.result()).add(wait.waited().toNanos());
        return wait;
    }

    long count(Result result) {
        return counts.get(result).sum();
    }

    double secondsWaited(Result result) {
        return nanos.get(result).sum() / 1e9;
    }
}
