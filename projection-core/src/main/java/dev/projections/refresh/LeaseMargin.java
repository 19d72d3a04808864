package dev.projections.refresh;

import java.time.Duration;

/**
 * The margin a lease keeps, {@code min(lease-time / 10, 10 s)} (docs/contract.md §4). {@link LeasePolicy} ends a
 * refresh's transaction at least this long before its lease lapses, measured in the claiming instance's clock; so the
 * protection holds across instances only while no two clocks differ by more than the margin, which is what
 * {@link ClockSkewRule} watches. One definition for both, so that the warning can never drift away from what it
 * protects again (review D5: it warned at a tenth of the lease while the margin stopped at 10 s).
 */
public final class LeaseMargin {

    /** The margin of every lease of 100 s or more: long leases gain time to refresh, not more slack. */
    public static final Duration CAP = Duration.ofSeconds(10);

    private LeaseMargin() {
    }

    public static Duration of(Duration leaseTime) {
        Duration tenth = leaseTime.dividedBy(10);
        return tenth.compareTo(CAP) > 0 ? CAP : tenth;
    }
}
