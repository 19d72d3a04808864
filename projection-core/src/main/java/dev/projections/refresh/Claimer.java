package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.config.Settings;
import dev.projections.store.ClaimedMark;
import dev.projections.store.HeldClaims;
import dev.projections.store.PendingQueue;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.time.Duration;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Claims marks (docs/contract.md §4 step 1) in a short transaction of its own, committed before any refresh starts, with a
 * fresh token per claim.
 */
final class Claimer {

    private static final Logger LOG = Logger.getLogger(Claimer.class.getName());

    private final PendingQueue queue;
    private final HeldClaims claims;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final Settings settings;
    private final LeasePolicy leases;

    Claimer(PendingQueue queue, HeldClaims claims, ShortTransactions shortTransactions, Clock clock, Settings settings,
            LeasePolicy leases) {
        this.leases = leases;
        this.queue = queue;
        this.claims = claims;
        this.shortTransactions = shortTransactions;
        this.clock = clock;
        this.settings = settings;
    }

    /**
     * Those of {@code keys} that are due and unleased, of the {@code claimable} projections, each with its
     * projection's lease: one statement per lease time among them (one, unless projections set their own).
     */
    List<ClaimedMark> claim(List<MarkKey> keys, Set<String> claimable) {
        String token = UUID.randomUUID().toString();
        return claimWith(token, connection -> {
            Instant now = clock.instant();
            List<ClaimedMark> claimed = new ArrayList<>();
            for (Map.Entry<Duration, Set<String>> byLease : byLease(claimable).entrySet()) {
                claimed.addAll(queue.claimKeys(connection, keys, byLease.getValue(), now, byLease.getKey(), token));
            }
            return claimed;
        });
    }

    /**
     * Up to {@code limit} due marks of the {@code claimable} projections, live first, oldest first (within each lease
     * time among them, when projections set their own).
     */
    List<ClaimedMark> claimDue(Set<String> claimable, int limit) {
        String token = UUID.randomUUID().toString();
        return claimWith(token, connection -> {
            Instant now = clock.instant();
            List<ClaimedMark> claimed = new ArrayList<>();
            for (Map.Entry<Duration, Set<String>> byLease : byLease(claimable).entrySet()) {
                if (claimed.size() < limit) {
                    claimed.addAll(queue.claimDue(connection, byLease.getValue(), now, byLease.getKey(), token,
                            limit - claimed.size()));
                }
            }
            return claimed;
        });
    }

    private Map<Duration, Set<String>> byLease(Set<String> projections) {
        Map<Duration, Set<String>> byLease = new TreeMap<>();
        for (String projection : projections) {
            byLease.computeIfAbsent(leases.of(projection), lease -> new TreeSet<>()).add(projection);
        }
        return byLease;
    }

    /**
     * A drainer's turn of {@code projection}: those of the handed-over {@code keys} that are due and unleased, then,
     * when {@code dueLook} is given, due marks of that projection up to {@code limit}, in one transaction under one
     * token: a committed key reaches its refresh after one claim commit, not two. The due marks cannot include the
     * keys just claimed (their fresh lease excludes them). What the due claim found goes to {@code dueLook}. With no
     * keys and no look, no transaction.
     */
    List<ClaimedMark> claimTurn(String projection, List<MarkKey> keys, int limit, DueLook dueLook) {
        if (keys.isEmpty() && dueLook == null) {
            return List.of();
        }
        Set<String> claimable = Set.of(projection);
        Duration lease = leases.of(projection);
        String token = UUID.randomUUID().toString();
        long begun = dueLook == null ? 0 : dueLook.begin();
        return claimWith(token, connection -> {
            Instant now = clock.instant();
            List<ClaimedMark> claimed = new ArrayList<>(keys.isEmpty() ? List.of()
                    : queue.claimKeys(connection, keys, claimable, now, lease, token));
            int asked = limit - claimed.size();
            if (dueLook != null && asked > 0) {
                List<ClaimedMark> due = queue.claimDue(connection, claimable, now, lease, token, asked);
                dueLook.looked(begun, due.size(), asked);
                claimed.addAll(due);
            }
            return claimed;
        });
    }

    /**
     * A rebuild's share of {@code projection}'s turns (docs/design.md D40): those of the handed-over {@code keys} that
     * are due and unleased, as in any turn, then up to {@code limit} of its due rebuild marks, passing over the live
     * marks that fill its other claims; one transaction, one token.
     */
    List<ClaimedMark> claimRebuildShare(String projection, List<MarkKey> keys, int limit) {
        Set<String> claimable = Set.of(projection);
        Duration lease = leases.of(projection);
        String token = UUID.randomUUID().toString();
        return claimWith(token, connection -> {
            Instant now = clock.instant();
            List<ClaimedMark> claimed = new ArrayList<>(keys.isEmpty() ? List.of()
                    : queue.claimKeys(connection, keys, claimable, now, lease, token));
            claimed.addAll(queue.claimDue(connection, claimable, now, lease, token, limit, PendingQueue.REBUILD));
            return claimed;
        });
    }

    /**
     * A claim whose lock wait ran out (docs/pitfalls.md #92: PostgreSQL's SKIP LOCKED can still wait, so a claim's
     * transaction waits for a lock only briefly) rolled back whole, having taken nothing: it is tried again after a
     * pause of 10 ms, then 20 ms (the business transaction it waited for ends meanwhile; a table lock a DBA's statement
     * holds may take longer), before it counts as the database's trouble.
     */
    private static final int TRIES_WHEN_A_LOCK_WAIT_RUNS_OUT = 3;

    private List<ClaimedMark> claimWith(String token, Transactions.Work<List<ClaimedMark>> claim) {
        for (int tried = 1; ; tried++) {
            try {
                return claimOnce(token, claim);
            } catch (DatabaseTroubleException failed) {
                if (tried == TRIES_WHEN_A_LOCK_WAIT_RUNS_OUT || !Transient.isLockTimeout(failed)) {
                    throw failed;
                }
                LOG.log(Level.FINE, "a claim's lock wait ran out; claiming again", failed);
                try {
                    Thread.sleep(10L * tried);
                } catch (InterruptedException stopping) {
                    Thread.currentThread().interrupt();
                    throw failed;
                }
            }
        }
    }

    /**
     * A claim whose transaction failed may still have committed (a connection lost during the commit): its marks
     * would then wait a whole lease with nobody working on them. The claim's statements ran, so the keys it took
     * are known; they are released by key and token at once in a new transaction. If the claim did not commit
     * that changes nothing, and if the database is still unreachable the lease remains the fallback.
     */
    private List<ClaimedMark> claimOnce(String token, Transactions.Work<List<ClaimedMark>> claim) {
        AtomicReference<List<ClaimedMark>> taken = new AtomicReference<>(List.of());
        try {
            return shortTransactions.run("claim", connection -> {
                List<ClaimedMark> claimed = claim.run(connection);
                taken.set(claimed);
                return claimed;
            });
        } catch (DatabaseTroubleException failed) {
            List<MarkKey> keys = taken.get().stream().map(ClaimedMark::key).toList();
            if (keys.isEmpty()) {
                throw failed;
            }
            try {
                int released = shortTransactions.runOrThrow(connection -> claims.releaseToken(connection, token, keys, clock.instant()));
                if (released > 0) {
                    LOG.log(Level.INFO, "released {0} marks of a claim whose commit was reported failed", released);
                }
            } catch (Exception stillDown) {
                failed.addSuppressed(stillDown);
            }
            throw failed;
        }
    }
}
