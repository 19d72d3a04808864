package dev.projections.refresh;

import dev.projections.store.ClaimedMark;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * How a refresh fits inside its lease (docs/contract.md §4 steps 2–3). A refresh transaction times out after
 * {@code min(lease-time / 2, lease left − margin)} (the margin is {@link LeaseMargin}'s), and a mark is only started
 * while its lease has at least {@code lease-time / 2 + margin} left, so the refresh's <em>transaction</em> ends before
 * the lease lapses. The thread may not: the transaction reaper rolls the transaction back, but a projection that keeps
 * running (or writes a store outside the database) can still write after the lease lapsed and another worker took the
 * key. Only writes in the pending table's database are protected, by that rollback; for any other read model the
 * stale write is repaired by the re-mark every path makes when it finds its claim gone. With the default lease
 * of 2 min: margin 10 s, timeout 60 s, start only with 70 s left. All of this is in the claiming instance's clock:
 * another instance takes the key at its own clock's end of the lease, so two clocks further apart than the margin
 * overlap, and {@link ClockSkewRule} warns before they can. The shortest lease is
 * {@link dev.projections.config.Settings#MIN_LEASE_TIME}.
 */
final class LeasePolicy {

    private final Duration lease;
    private final Duration margin;
    private final Function<String, Duration> leases;

    LeasePolicy(Duration lease) {
        this(lease, projection -> lease);
    }

    /**
     * @param lease         the instance's {@code lease-time}: the short transactions' bound
     * @param perProjection each projection's {@code lease-time} (docs/design.md D45), which its marks were claimed
     *                      with
     */
    LeasePolicy(Duration lease, Function<String, Duration> perProjection) {
        this.lease = lease;
        this.margin = LeaseMargin.of(lease);
        this.leases = perProjection;
    }

    /** What the transaction keeps clear of the instance's lease's end ({@link LeaseMargin}). */
    Duration margin() {
        return margin;
    }

    boolean leftToStart(ClaimedMark mark, Instant now) {
        Duration itsLease = leases.apply(mark.key().projection());
        return Duration.between(now, mark.leaseUntil()).compareTo(itsLease.dividedBy(2).plus(LeaseMargin.of(itsLease)))
                >= 0;
    }

    /** The timeout of a refresh transaction over {@code marks}, bounded by the shortest lease among them. */
    Duration refreshTimeout(List<ClaimedMark> marks, Instant now) {
        Duration timeout = null;
        for (ClaimedMark mark : marks) {
            Duration itsLease = leases.apply(mark.key().projection());
            Duration left = Duration.between(now, mark.leaseUntil()).minus(LeaseMargin.of(itsLease));
            Duration half = itsLease.dividedBy(2);
            Duration bound = left.compareTo(half) < 0 ? left : half;
            if (timeout == null || bound.compareTo(timeout) < 0) {
                timeout = bound;
            }
        }
        if (timeout == null) {
            timeout = lease.dividedBy(2);
        }
        // JTA timeouts are whole seconds; a mark is only started with far more than that left (leftToStart)
        return timeout.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : timeout;
    }

    /** The lease {@code projection}'s marks are claimed and renewed with. */
    Duration of(String projection) {
        return leases.apply(projection);
    }

    /** Claims, acks of failures and releases are short statements. */
    Duration shortTransaction() {
        return lease.dividedBy(2);
    }
}
