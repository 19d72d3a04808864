package dev.projections.inspect;

import java.time.Instant;

/**
 * One partition of a rebuild run, as the console shows it: the ids after {@code after} up to {@code upTo} (either
 * open when {@code null}), how far its cursor went, whether a step holds it now and until when, and how often a
 * lapsed lease was taken over; {@code readModel}: a verification's partition over the read model's own ids. The
 * console's copy of the store's {@code RebuildPartition}, for the same reason as
 * {@link TrendMinute}.
 */
public record PartitionProgress(int number, String after, String upTo, String cursor, boolean exhausted, long marked,
                                boolean held, Instant leaseUntil, int takeovers, boolean readModel) {
}
