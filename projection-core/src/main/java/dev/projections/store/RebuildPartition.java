package dev.projections.store;

import java.time.Instant;

/**
 * One partition of a rebuild run, as the console shows it: the ids after {@code after} up to {@code upTo} (either
 * open when {@code null}), how far its cursor went, whether a step holds it now and until when, and how often a
 * lapsed lease was taken over; {@code readModel}: a verification's partition that pages through the read model's own
 * ids.
 */
public record RebuildPartition(int number, String after, String upTo, String cursor, boolean exhausted, long marked,
                               boolean held, Instant leaseUntil, int takeovers, boolean readModel) {
}
