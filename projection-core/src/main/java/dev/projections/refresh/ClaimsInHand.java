package dev.projections.refresh;

import dev.projections.store.ClaimedMark;
import dev.projections.store.HeldClaims;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The claims a drainer holds, each in a short transaction of its own: renewed so that they fit a refresh beginning
 * now, released when never started, abandoned when attempted and not finished.
 */
final class ClaimsInHand {

    private final HeldClaims claims;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final LeasePolicy leases;

    ClaimsInHand(HeldClaims claims, ShortTransactions shortTransactions, Clock clock, LeasePolicy leases) {
        this.claims = claims;
        this.shortTransactions = shortTransactions;
        this.clock = clock;
        this.leases = leases;
    }

    /**
     * {@code marks} (in key order) with leases that fit a refresh beginning now. What runs before the refresh's
     * transaction — the read of the trace contexts, which waits for a connection up to the pool's timeout, and the
     * tenant scope's entry — may have used too much of them, and a transaction timed from the claim would then outlive
     * the lease and overlap the next worker's (engine review E5): they are renewed first. {@code null} when a claim was
     * lost meanwhile; the ones still held are given back.
     */
    List<ClaimedMark> fitting(List<ClaimedMark> marks) {
        Instant now = clock.instant();
        if (marks.stream().allMatch(mark -> leases.leftToStart(mark, now))) {
            return marks;
        }
        List<ClaimedMark> renewed = new ArrayList<>(renew(marks));
        if (renewed.size() < marks.size()) {
            release(renewed);
            return null;
        }
        renewed.sort(Comparator.comparing(ClaimedMark::key));
        return renewed;
    }

    /** Renews each mark's claim with its projection's lease; the ones still held. */
    List<ClaimedMark> renew(List<ClaimedMark> marks) {
        // a turn's batch is one projection's; steps of a test may hold several, each renewed with its own lease
        Map<String, List<ClaimedMark>> byProjection = new TreeMap<>();
        marks.forEach(mark -> byProjection.computeIfAbsent(mark.key().projection(), p -> new ArrayList<>()).add(mark));
        return shortTransactions.run("lease renewal", connection -> {
            List<ClaimedMark> renewed = new ArrayList<>();
            for (Map.Entry<String, List<ClaimedMark>> group : byProjection.entrySet()) {
                renewed.addAll(claims.renew(connection, group.getValue(), clock.instant(), leases.of(group.getKey())));
            }
            return renewed;
        });
    }

    /** Gives back claims that were never started. */
    void release(List<ClaimedMark> marks) {
        if (!marks.isEmpty()) {
            shortTransactions.run("release", connection -> claims.release(connection, marks, clock.instant()));
        }
    }

    /** Gives back a claim without counting an attempt, due again at {@code dueAt} (a probe that failed). */
    void giveBackUntried(ClaimedMark mark, Instant dueAt) {
        shortTransactions.run("give back a probe",
                connection -> claims.giveBackUntried(connection, mark, clock.instant(), dueAt));
    }

    /** Gives back claims whose refresh was attempted (their batch failed) and not finished. */
    void abandon(List<ClaimedMark> marks) {
        if (!marks.isEmpty()) {
            shortTransactions.run("release", connection -> claims.abandon(connection, marks, clock.instant()));
        }
    }
}
