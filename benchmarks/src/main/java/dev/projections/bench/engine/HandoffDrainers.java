package dev.projections.bench.engine;

import dev.projections.MarkKey;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.RefreshEngine;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The after-commit path of the EE layer, with an executor in place of {@code @Asynchronous} drainers: committed keys
 * are offered to the instance's {@link Handoff}; a slot it reserves starts a drainer, which runs one engine turn and
 * then gives its slot back or passes it to a successor. Like the server's, no committing thread ever waits.
 */
public final class HandoffDrainers implements AutoCloseable {

    private final EngineInstance instance;
    private final ExecutorService pool;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    public HandoffDrainers(EngineInstance instance) {
        this.instance = instance;
        int workers = instance.settings().workers();
        // more threads than slots, as the server's EJB pool has: the hand-off, not the pool, bounds the drainers
        this.pool = Executors.newFixedThreadPool(workers + 1, runnable -> {
            Thread thread = new Thread(runnable, "handoff-drainer");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** On the committing thread, after the commit: what {@code MarkSink.committed} does in the server. */
    public void committed(Set<MarkKey> keys) {
        Handoff.Slot slot = instance.handoff().offer(keys);
        if (slot != null) {
            start(slot);
        }
        if (instance.handoff().takeSweepRequest()) {
            startIfSlotFree();
        }
    }

    private void startIfSlotFree() {
        Handoff.Slot slot = instance.handoff().tryReserve();
        if (slot != null) {
            start(slot);
        }
    }

    private void start(Handoff.Slot slot) {
        try {
            pool.execute(() -> drain(slot));
        } catch (RejectedExecutionException e) {
            slot.startFailed();
        }
    }

    private void drain(Handoff.Slot slot) {
        if (!slot.run()) {
            return;
        }
        RefreshEngine engine = instance.engine();
        boolean moreWork = false;
        try {
            // as the server's drainer does: one that claims a full batch has found a backlog, and starts a helper
            moreWork = engine.drain(this::startIfSlotFree);
        } catch (RuntimeException | Error e) {
            failure.compareAndSet(null, e);
        } finally {
            Handoff.Slot successor = slot.finish(moreWork, engine.stopping());
            if (successor != null) {
                start(successor);
            }
        }
    }

    /**
     * Waits until no drainer runs, no key waits in the hand-off and nothing is due, starting a drainer the way the
     * sweep would when marks are due with nobody working on them. Throws what a drainer threw.
     */
    public void awaitQuiet(long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            rethrowFailure();
            Handoff handoff = instance.handoff();
            if (handoff.inFlight() == 0 && handoff.waiting() == 0) {
                if (!instance.engine().hasDueWork()) {
                    rethrowFailure();
                    return;
                }
                startIfSlotFree();
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("drainers still busy after " + timeoutMillis + " ms");
            }
            Thread.sleep(2);
        }
    }

    private void rethrowFailure() {
        Throwable e = failure.get();
        if (e != null) {
            throw new IllegalStateException("a drainer failed: " + e, e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
    }
}
