package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.spi.RefreshTracing;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import dev.projections.store.PendingQueue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A lone handed key claimed, refreshed and acked in one transaction (docs/design.md D53, docs/contract.md §4): the
 * common case after a commit, which otherwise pays a claim transaction and its commit before the refresh. The claim's
 * row lock, held to the commit, is what keeps other workers off the key; its lease is never seen by another
 * transaction. A crash or a failure at any point rolls back the claim with the refresh and the ack, so the mark is
 * left as it was, due and unleased, for any worker to take at once. When the projection's refresh threw an error of
 * its own, the drainer claims the mark the ordinary way and records that failure on it (attempts, backoff, parking,
 * suspension, listeners), without a second refresh; anything else (back-pressure, a transient failure such as a lock
 * wait cut short, the claim, ack or commit failing) sends the key the ordinary way, refreshed there.
 * <p>
 * A business commit that marks the key while it is refreshed waits for the row until the refresh commits, then marks it
 * anew: so only projections whose refreshes are short take this path ({@link #applies}). Should the refresh in turn
 * wait for a lock that business transaction holds, the refresh gives way: on PostgreSQL its lock waits are bounded
 * (the claim's), it rolls back and goes the ordinary way (docs/pitfalls.md #96).
 */
final class OneTransactionRefresh {

    private static final Logger LOG = Logger.getLogger(OneTransactionRefresh.class.getName());

    /**
     * A projection whose refreshes typically take longer goes through the two transactions, where a business commit
     * of the key being refreshed does not wait for the refresh; its refreshes there keep the typical time current, so
     * it comes back once they are short again.
     */
    static final Duration LONGEST_TYPICAL_REFRESH = Duration.ofMillis(50);

    /** How the one transaction ended. */
    enum Ended {
        /** refreshed and acked, committed */
        REFRESHED,
        /** nothing to claim: leased to another worker, not due, or gone; nothing was refreshed */
        NOT_CLAIMED,
        /** rolled back, the mark as it was: to be claimed the ordinary way */
        ROLLED_BACK
    }

    /**
     * What a refresh in one transaction ended with: the mark it claimed, its ack's outcome when it committed; when it
     * rolled back because the projection's refresh threw, that failure and how long the attempt took.
     */
    record Result(Ended ended, ClaimedMark mark, AckOutcome outcome, Throwable failure, Duration took) {
    }

    /** Told of a refresh that committed, as every path tells it. */
    @FunctionalInterface
    interface Committed {
        void refreshed(ClaimedMark mark, AckOutcome outcome, Instant committedAt, Duration took);
    }

    private final PendingQueue queue;
    private final Transactions transactions;
    private final Clock clock;
    private final Settings settings;
    private final ProjectionCatalog catalog;
    private final TenantScope tenantScope;
    private final LeasePolicy leases;
    private final RefreshTracing tracing;
    private final boolean databaseAllows;
    private final boolean databaseDefault;
    private final ApplicationCallbacks callbacks;
    private final Committed committed;
    private final RefreshTimes times;

    OneTransactionRefresh(PendingQueue queue, Transactions transactions, Clock clock, Settings settings,
                          ProjectionCatalog catalog, TenantScope tenantScope, LeasePolicy leases,
                          RefreshTracing tracing, boolean databaseAllows, boolean databaseDefault,
                          ApplicationCallbacks callbacks, Committed committed, RefreshTimes times) {
        this.queue = queue;
        this.transactions = transactions;
        this.clock = clock;
        this.settings = settings;
        this.catalog = catalog;
        this.tenantScope = tenantScope;
        this.leases = leases;
        this.tracing = tracing;
        this.databaseAllows = databaseAllows;
        this.databaseDefault = databaseDefault;
        this.callbacks = callbacks;
        this.committed = committed;
        this.times = times;
    }

    /**
     * Whether {@code projection}'s lone handed key goes this way: where the database allows it
     * ({@code Dialect.refreshesInTheClaimTransaction}), the projection's {@code one-transaction} setting is on (unset:
     * the database's default), one of its refreshes has been timed and they typically take at most
     * {@link #LONGEST_TYPICAL_REFRESH}, and refreshes are not traced (a span begins with the marks' trace contexts,
     * read once the mark is claimed, before the refresh's transaction).
     */
    boolean applies(String projection) {
        if (!databaseAllows) {
            return false;
        }
        Boolean set = settings.of(projection).oneTransaction();
        return (set == null ? databaseDefault : set) && times.typicallyWithin(projection, LONGEST_TYPICAL_REFRESH)
                && !tracing.enabled();
    }

    /** Claims {@code key}, refreshes and acks it in one transaction, as its tenant. */
    Result refresh(MarkKey key) {
        Projection projection = catalog.byName(key.projection());
        Duration lease = leases.of(key.projection());
        Duration timeout = lease.dividedBy(2).compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1)
                : lease.dividedBy(2); // as a claimed mark's refresh with its whole lease left (LeasePolicy)
        String token = UUID.randomUUID().toString();
        AtomicReference<ClaimedMark> claimed = new AtomicReference<>();
        AtomicReference<Throwable> refreshFailed = new AtomicReference<>();
        Instant start = clock.instant();
        AckOutcome outcome;
        try {
            outcome = TenantScoped.run(tenantScope, key.tenantId(),
                    () -> transactions.inNewTransaction(timeout, connection -> {
                        ClaimedMark mark = queue.claimToRefresh(connection, key, clock.instant(), lease, token);
                        if (mark == null) {
                            return null;
                        }
                        claimed.set(mark);
                        try {
                            projection.refresh(key.entityId());
                        } catch (Exception | LinkageError | AssertionError e) {
                            refreshFailed.set(e);
                            throw e;
                        }
                        return queue.ack(connection, mark, clock.instant());
                    }), closing -> callbacks.scopeCloseFailed(key, closing));
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.FINE, "the refresh of " + key + " in one transaction rolled back; it is claimed again", e);
            Duration took = Duration.between(start, clock.instant());
            times.took(key.projection(), took);
            return new Result(Ended.ROLLED_BACK, claimed.get(), null, refreshFailed.get(), took);
        }
        if (outcome == null) {
            return new Result(Ended.NOT_CLAIMED, null, null, null, null);
        }
        // committed and acked: from here on nothing is the refresh's failure (docs/contract.md §6)
        Instant committedAt = clock.instant();
        committed.refreshed(claimed.get(), outcome, committedAt, Duration.between(start, committedAt));
        return new Result(Ended.REFRESHED, claimed.get(), outcome, null, null);
    }
}
