package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.spi.RefreshTracing;
import dev.projections.store.AckOutcome;
import dev.projections.store.ClaimedMark;
import dev.projections.store.ClaimsInRefresh;
import dev.projections.store.PendingQueue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
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

    /**
     * How long a batch's transaction may take before the container rolls it back (its marks then go the ordinary way):
     * a batch's rows are held to its commit, and with them every business commit of their keys, so a refresh that
     * hangs now and then must not hold them for half the lease (a minute by default), as a lone key's may. Forty times
     * the longest typical batch ({@link #LONGEST_TYPICAL_REFRESH}); a JTA timeout is whole seconds.
     */
    static final Duration LONGEST_BATCH = Duration.ofSeconds(2);

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

    /**
     * A turn's batch in one transaction: what it claimed, in key order, and each ack's outcome, once it committed; or,
     * rolled back because the projection's refresh of its one mark threw, that mark, the failure and how long it took.
     */
    record Batch(List<ClaimedMark> claimed, List<AckOutcome> outcomes, int due, int asked, Throwable failure,
                 Duration took) {
    }

    /**
     * After a batch's refresh failed, or its claim found live marks due, how long its projection's batches go the
     * ordinary way: a failure met only in one transaction (a lock wait cut short beside a hot read-model row,
     * back-pressure) is then not met again turn after turn, each time with a refresh thrown away, nor a claim of live
     * marks made twice. A claim whose lock wait was cut short (pitfall #92) rests nothing: the next turn tries again.
     */
    static final Duration REST_AFTER_A_ROLLBACK = Duration.ofSeconds(1);

    /** Rolls a batch's transaction back before any refresh: its marks go the ordinary way. */
    private static final class NotInOne extends RuntimeException {
        /** Whether the projection's batches rest, as after a rollback: live marks were due. */
        private final boolean rest;

        NotInOne(boolean rest) {
            super("not in one transaction", null, false, false);
            this.rest = rest;
        }
    }

    /** Told of a refresh that committed, as every path tells it. */
    @FunctionalInterface
    interface Committed {
        void refreshed(ClaimedMark mark, AckOutcome outcome, Instant committedAt, Duration took);
    }

    private final PendingQueue queue;
    private final ClaimsInRefresh claims;
    /** Projections whose marks came with tenants while a tenant scope is deployed: their batches go the ordinary way. */
    private final Set<String> tenantsSeen = ConcurrentHashMap.newKeySet();
    /** Projections whose batches go the ordinary way until then, after a rollback. */
    private final Map<String, Instant> restingUntil = new ConcurrentHashMap<>();
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
        this.claims = new ClaimsInRefresh(queue);
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
                        ClaimedMark mark = claims.claim(connection, key, clock.instant(), lease, token);
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

    /**
     * Whether a turn of {@code projection} claiming up to {@code limit} marks goes as one batch in one transaction
     * (docs/design.md D59): as a lone key ({@link #applies}), and a whole batch's refresh typically within
     * {@link #LONGEST_TYPICAL_REFRESH}, since its rows are held that long; not where its marks came with tenants while
     * a tenant scope is deployed (a transaction is entered as one tenant, before it begins).
     */
    boolean appliesToBatch(String projection, int limit) {
        Instant resting = restingUntil.get(projection);
        return applies(projection) && !tenantsSeen.contains(projection)
                && (resting == null || !clock.instant().isBefore(resting))
                && times.typicallyWithin(projection, LONGEST_TYPICAL_REFRESH.dividedBy(Math.max(1, limit)));
    }

    /**
     * A drainer's turn in one transaction: the handed {@code keys}, then due marks up to {@code limit} when
     * {@code look} (of priority {@code fromPriority} or lower), claimed, refreshed one tenant's group at a time as the
     * ordinary path refreshes a batch, and acked on the rows the claim holds; {@code null} when it rolled back, the
     * marks as they were, to be claimed the ordinary way. A batch with a retry in it rolls back before any refresh: a
     * failure is recorded the ordinary way, one mark at a time. So does a batch with a live mark in it (docs/design.md
     * D59: a business commit marks live keys again, and would wait for the batch), and the projection's batches then
     * rest as after a rollback: only a rebuild's batches go this way. A batch of one mark whose refresh threw says so, so
     * that its failure is recorded without a second refresh, as a lone key's is ({@link #refresh(MarkKey)}).
     */
    Batch refreshBatch(String projection, List<MarkKey> keys, int limit, boolean look, int fromPriority) {
        Projection refreshed = catalog.byName(projection);
        Duration lease = leases.of(projection);
        Duration halfTheLease = lease.dividedBy(2).compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1)
                : lease.dividedBy(2); // as in refresh(MarkKey)
        Duration timeout = halfTheLease.compareTo(LONGEST_BATCH) < 0 ? halfTheLease : LONGEST_BATCH;
        String token = UUID.randomUUID().toString();
        Set<MarkKey> handed = new HashSet<>(keys);
        Instant start = clock.instant();
        AtomicReference<List<ClaimedMark>> claimedMarks = new AtomicReference<>(List.of());
        AtomicReference<Throwable> refreshFailed = new AtomicReference<>();
        Batch done;
        try {
            done = transactions.inNewTransaction(timeout, connection -> {
                List<ClaimedMark> claimed = new ArrayList<>(claims.claimTurn(connection, projection, keys, limit,
                        look, fromPriority, clock.instant(), lease, token));
                claimedMarks.set(claimed);
                int fromKeys = (int) claimed.stream().filter(mark -> handed.contains(mark.key())).count();
                if (claimed.isEmpty()) {
                    return new Batch(List.of(), List.of(), 0, limit - fromKeys, null, null);
                }
                if (claimed.stream().anyMatch(mark -> mark.priority() != PendingQueue.REBUILD)) {
                    throw new NotInOne(true); // live marks: their keys are the ones business commits mark again
                }
                if (claimed.stream().anyMatch(mark -> mark.attempts() > 0) || !enterable(projection, claimed)) {
                    throw new NotInOne(false);
                }
                claimed.sort(Comparator.comparing(ClaimedMark::key));
                try {
                    for (List<String> ids : idsByTenant(claimed).values()) {
                        if (ids.size() == 1) {
                            refreshed.refresh(ids.get(0));
                        } else {
                            refreshed.refreshAll(ids);
                        }
                    }
                } catch (Exception | LinkageError | AssertionError e) {
                    refreshFailed.set(e);
                    throw e;
                }
                return new Batch(claimed, claims.ack(connection, claimed, clock.instant()),
                        claimed.size() - fromKeys, limit - fromKeys, null, null);
            });
        } catch (NotInOne notHere) {
            if (notHere.rest) {
                restingUntil.put(projection, clock.instant().plus(REST_AFTER_A_ROLLBACK));
            }
            return null;
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.FINE, "a batch of " + projection + " in one transaction rolled back; it is claimed again", e);
            if (refreshFailed.get() != null) {
                // the refresh itself failed: not the claim's lock wait, cut short now and then (docs/pitfalls.md #92)
                restingUntil.put(projection, clock.instant().plus(REST_AFTER_A_ROLLBACK));
            }
            List<ClaimedMark> claimed = claimedMarks.get();
            if (claimed.isEmpty()) {
                return null;
            }
            Duration took = Duration.between(start, clock.instant());
            times.took(projection, took.dividedBy(claimed.size()));
            return claimed.size() == 1 && refreshFailed.get() != null
                    ? new Batch(claimed, null, 0, 0, refreshFailed.get(), took) : null;
        }
        // committed and acked: each mark's refresh ends as on the ordinary path, the batch's time shared by its marks
        Instant committedAt = clock.instant();
        for (int i = 0; i < done.claimed().size(); i++) {
            committed.refreshed(done.claimed().get(i), done.outcomes().get(i), committedAt,
                    Duration.between(start, committedAt).dividedBy(done.claimed().size()));
        }
        return done;
    }

    /** Whether {@code claimed} may be refreshed in a transaction begun without entering a tenant scope. */
    private boolean enterable(String projection, List<ClaimedMark> claimed) {
        if (tenantScope == TenantScope.NONE || claimed.stream().allMatch(mark -> mark.key().tenantId().isEmpty())) {
            return true;
        }
        tenantsSeen.add(projection);
        return false;
    }

    private static Map<String, List<String>> idsByTenant(List<ClaimedMark> sorted) {
        Map<String, List<String>> ids = new LinkedHashMap<>();
        sorted.forEach(mark -> ids.computeIfAbsent(mark.key().tenantId(), tenant -> new ArrayList<>())
                .add(mark.key().entityId()));
        return ids;
    }
}
