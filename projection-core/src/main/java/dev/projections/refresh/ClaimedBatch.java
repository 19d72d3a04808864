package dev.projections.refresh;

import dev.projections.store.ClaimedMark;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Marks claimed together, each moving CLAIMED → STARTED (a worker refreshes it) or CLAIMED → RELEASED (shutdown,
 * pause or a short lease gives it back) by compare-and-set, so a release can never race a refresh that is
 * starting: exactly one of the two wins for each mark.
 */
final class ClaimedBatch {

    enum State { CLAIMED, STARTED, RELEASED }

    private final List<ClaimedMark> marks;
    private final AtomicReferenceArray<State> states;

    ClaimedBatch(List<ClaimedMark> marks) {
        this.marks = List.copyOf(marks);
        this.states = new AtomicReferenceArray<>(marks.size());
        for (int i = 0; i < marks.size(); i++) {
            states.set(i, State.CLAIMED);
        }
    }

    /** Projections this batch's failures just suspended: their marks still to go are given back, not refreshed. */
    private final Set<String> suspended = ConcurrentHashMap.newKeySet();

    void suspended(String projection) {
        suspended.add(projection);
    }

    boolean isSuspended(String projection) {
        return suspended.contains(projection);
    }

    /** Set when a refresh of this batch met back-pressure: nothing more of it is started, its drainer stops. */
    private volatile boolean pressed;

    void pressed() {
        pressed = true;
    }

    boolean isPressed() {
        return pressed;
    }

    /** How many of its marks were refreshed and acked as claimed (neither given back, failed nor marked anew). */
    private final AtomicInteger refreshedAsClaimed = new AtomicInteger();

    void refreshedAsClaimed(int count) {
        refreshedAsClaimed.addAndGet(count);
    }

    /** Whether every mark was refreshed and acked as claimed: then nothing of it is due again. */
    boolean allRefreshedAsClaimed() {
        return refreshedAsClaimed.get() == marks.size();
    }

    List<ClaimedMark> marks() {
        return marks;
    }

    /** Its marks grouped by projection and tenant, in claim order: what one {@code refreshAll} may take. */
    List<List<ClaimedMark>> groups() {
        Map<String, List<ClaimedMark>> groups = new LinkedHashMap<>();
        for (ClaimedMark mark : marks) {
            groups.computeIfAbsent(mark.key().projection() + '\u0000' + mark.key().tenantId(), k -> new ArrayList<>())
                    .add(mark);
        }
        return new ArrayList<>(groups.values());
    }

    boolean start(ClaimedMark mark) {
        return states.compareAndSet(marks.indexOf(mark), State.CLAIMED, State.STARTED);
    }

    boolean toRelease(ClaimedMark mark) {
        return states.compareAndSet(marks.indexOf(mark), State.CLAIMED, State.RELEASED);
    }

    /** Moves every still-CLAIMED mark to RELEASED and returns them. */
    List<ClaimedMark> releaseUnstarted() {
        List<ClaimedMark> released = new ArrayList<>();
        for (int i = 0; i < marks.size(); i++) {
            if (states.compareAndSet(i, State.CLAIMED, State.RELEASED)) {
                released.add(marks.get(i));
            }
        }
        return released;
    }
}
