package dev.projections;

import java.time.Duration;

/**
 * This instance's clock against the database's, as its last sweep measured it (docs/contract.md §4, "Time"):
 * {@code skew} is the engine's clock minus the database's, {@code limit} how far either way it may be. Leases are
 * compared across instances, so each instance keeps within half the lease margin; two instances that both do differ
 * by at most the margin, which is what a lease tolerates.
 */
public record ClockSkew(Duration skew, Duration limit) {

    /** Beyond the limit: the log warns at every sweep, and the console flags the instance. */
    public boolean exceeded() {
        return skew.abs().compareTo(limit) > 0;
    }
}
