package dev.projections.refresh;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Refreshes per projection in the last minute on this instance (the console's "refreshes/min", docs/contract.md §12): sixty
 * one-second buckets per projection, reused as time moves on, so memory stays fixed however busy it is.
 */
public final class RefreshRate {

    private static final int SECONDS = 60;

    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    public void record(String projection, Instant at) {
        windows.computeIfAbsent(projection, name -> new Window()).add(at.getEpochSecond());
    }

    /** Refreshes of {@code projection} recorded in the 60 seconds up to {@code now}. */
    public long lastMinute(String projection, Instant now) {
        Window window = windows.get(projection);
        return window == null ? 0 : window.sum(now.getEpochSecond());
    }

    private static final class Window {
        private final long[] second = new long[SECONDS];
        private final long[] count = new long[SECONDS];

        synchronized void add(long at) {
            int slot = (int) Math.floorMod(at, (long) SECONDS);
            if (second[slot] != at) {
                second[slot] = at;
                count[slot] = 0;
            }
            count[slot]++;
        }

        synchronized long sum(long now) {
            long total = 0;
            for (int slot = 0; slot < SECONDS; slot++) {
                long age = now - second[slot];
                if (age >= 0 && age < SECONDS) {
                    total += count[slot];
                }
            }
            return total;
        }
    }
}
