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
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A lone handed key (or two of one commit, each of its own projection: D60) claimed, refreshed and acked in one
 * transaction (docs/design.md D53, docs/contract.md §4): the common case after a commit, which otherwise pays a claim
 * transaction and its commit before the refresh. The claim's row lock, held to the commit, keeps other workers off the
 * key; its lease is never seen by another transaction (on PostgreSQL and MariaDB none is written: the claim takes the
 * row, D61). A crash or a failure at any point rolls back the claim (or take) with the refresh and any ack, so the mark
 * is left as it was, due and unleased, for any worker to take at once. When the projection's refresh threw an error of
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
        /** rolled back, the marks as they were: to be claimed the ordinary way */
        ROLLED_BACK
    }

    /**
     * What a refresh of lone keys in one transaction ended with: the marks it claimed, in key order (a key left out was
     * not claimable), and, once it committed, each ack's outcome in that order; when it rolled back because a
     * projection's refresh threw, the key whose refresh it was, that failure and how long the attempt took.
     */
    record Result(Ended ended, List<ClaimedMark> marks, List<AckOutcome> outcomes, MarkKey failed, Throwable failure,
                  Duration took) {
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

    private final ClaimsInRefresh claims;
    /** Projections whose marks came with tenants while a tenant scope is deployed: their batches go the ordinary way. */
    private final Set<String> tenantsSeen = ConcurrentHashMap.newKeySet();
    /** Projections whose batches go the ordinary way, and whose lone keys go alone, until then, after a rollback. */
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
                          ProjectionCatalog catalog, TenantScope tenantScope, LeasePolicy leases, RefreshTracing tracing,
                          boolean databaseAllows, boolean databaseDefault, ApplicationCallbacks callbacks,
                          Committed committed, RefreshTimes times, RefreshCommits commits) {
        this.claims = new ClaimsInRefresh(queue, commits::of);
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

    /**
     * Whether {@code projection}'s lone handed key may share its one transaction with another projection's, as a
     * commit that marks two projections hands them over (docs/design.md D60): as {@link #applies}, with no
     * {@code synchronous-commit} of its own (D63: paired projections commit alike), and its refreshes typically within
     * half of {@link #LONGEST_TYPICAL_REFRESH}, so that the two together hold their rows no longer than one lone key
     * may; not for a while after a refresh of it threw in one transaction, so that a failing projection does not have
     * its companion's refresh rolled back with it commit after commit.
     */
    boolean pairs(String projection) {
        Instant resting = restingUntil.get(projection);
        return applies(projection) && (resting == null || !clock.instant().isBefore(resting))
                && Objects.equals(settings.of(projection).synchronousCommit(), settings.synchronousCommit())
                && times.typicallyWithin(projection, LONGEST_TYPICAL_REFRESH.dividedBy(2));
    }

    /**
     * Claims {@code keys} (lone handed keys of one tenant, each of another projection: one, or two that {@link #pairs}),
     * refreshes and acks them in one transaction, as their tenant; a key not claimable is left out, the others not.
     */
    Result refresh(List<MarkKey> keys) {
        String tenant = keys.get(0).tenantId();
        if (keys.stream().anyMatch(key -> !key.tenantId().equals(tenant))) {
            throw new IllegalArgumentException("lone keys of one tenant only, were " + keys);
        }
        Duration lease = Duration.ZERO;
        Duration timeout = null;
        for (MarkKey key : keys) {
            Duration its = leases.of(key.projection());
            // as a claimed mark's refresh with its whole lease left (LeasePolicy); the lease is never seen by
            // another transaction, the longest is set
            Duration half = halfOf(its);
            lease = its.compareTo(lease) > 0 ? its : lease;
            timeout = timeout == null || half.compareTo(timeout) < 0 ? half : timeout;
        }
        Duration claimedFor = lease;
        Duration within = timeout;
        String token = UUID.randomUUID().toString();
        AtomicReference<List<ClaimedMark>> claimed = new AtomicReference<>(List.of());
        AtomicReference<MarkKey> refreshing = new AtomicReference<>();
        AtomicReference<Throwable> refreshFailed = new AtomicReference<>();
        // each claimed mark's own refresh time, in claim order: a pair's projections are timed apart
        Duration[] spent = new Duration[keys.size()];
        Instant start = clock.instant();
        List<AckOutcome> outcomes;
        try {
            outcomes = TenantScoped.run(tenantScope, tenant,
                    () -> transactions.inNewTransaction(within, connection -> {
                        ClaimsInRefresh.Claimed claim = claims.claim(connection, keys, clock.instant(), claimedFor, token);
                        List<ClaimedMark> marks = claim.marks();
                        if (marks.isEmpty()) {
                            return null;
                        }
                        claimed.set(marks);
                        for (int i = 0; i < marks.size(); i++) {
                            MarkKey key = marks.get(i).key();
                            refreshing.set(key);
                            Instant begun = clock.instant();
                            try {
                                catalog.byName(key.projection()).refresh(key.entityId());
                            } catch (Exception | LinkageError | AssertionError e) {
                                refreshFailed.set(e);
                                throw e;
                            } finally {
                                spent[i] = Duration.between(begun, clock.instant());
                            }
                        }
                        return claims.ackClaimed(connection, claim, clock.instant());
                    }), closing -> callbacks.scopeCloseFailed(keys.get(0), closing));
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.FINE, "the refresh of " + keys + " in one transaction rolled back; it is claimed again", e);
            Duration took = Duration.between(start, clock.instant());
            MarkKey failed = refreshFailed.get() == null ? null : refreshing.get();
            // a refresh that fails slowly counts too; a pair's rollback by anything else times neither
            MarkKey timed = failed != null ? failed : keys.size() == 1 ? keys.get(0) : null;
            if (timed != null) {
                int at = claimed.get().stream().map(ClaimedMark::key).toList().indexOf(timed);
                took = at < 0 ? took : share(spent, at, took, claimed.get().size());
                times.took(timed.projection(), took);
            }
            return new Result(Ended.ROLLED_BACK, claimed.get(), null, failed, refreshFailed.get(), took);
        }
        if (outcomes == null) {
            return new Result(Ended.NOT_CLAIMED, List.of(), List.of(), null, null, null);
        }
        // committed and acked: from here on nothing is the refresh's failure (docs/contract.md §6)
        Instant committedAt = clock.instant();
        List<ClaimedMark> marks = claimed.get();
        for (int i = 0; i < marks.size(); i++) {
            committed.refreshed(marks.get(i), outcomes.get(i), committedAt,
                    share(spent, i, Duration.between(start, committedAt), marks.size()));
        }
        return new Result(Ended.REFRESHED, marks, outcomes, null, null, null);
    }

    /** Half of {@code lease}, at least a second: a claimed mark's refresh with its whole lease left (LeasePolicy). */
    private static Duration halfOf(Duration lease) {
        Duration half = lease.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : half;
    }

    /**
     * The time of the {@code i}th of {@code marks} claimed marks: its own refresh and an even share of the rest of the
     * transaction's time {@code whole} (claim, ack, commit); a lone mark's is the whole.
     */
    static Duration share(Duration[] spent, int i, Duration whole, int marks) {
        Duration rest = whole;
        for (int j = 0; j < marks; j++) {
            rest = spent[j] == null ? rest : rest.minus(spent[j]);
        }
        Duration own = spent[i] == null ? Duration.ZERO : spent[i];
        return own.plus(rest.isNegative() ? Duration.ZERO : rest.dividedBy(marks));
    }

    /**
     * A pair's refresh of {@code projection} threw an error of its own: its lone keys go alone for a while
     * ({@link #REST_AFTER_A_ROLLBACK}), so that a failing projection does not have its companion's refresh rolled back
     * with it commit after commit.
     */
    void restFromPairs(String projection) {
        restingUntil.put(projection, clock.instant().plus(REST_AFTER_A_ROLLBACK));
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
     * that its failure is recorded without a second refresh, as a lone key's is ({@link #refresh(List)}).
     */
    Batch refreshBatch(String projection, List<MarkKey> keys, int limit, boolean look, int fromPriority) {
        Projection refreshed = catalog.byName(projection);
        Duration lease = leases.of(projection);
        Duration halfTheLease = halfOf(lease); // as in refresh(List)
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
