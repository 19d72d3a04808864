package dev.projections.ee;

import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.Sweep;
import dev.projections.refresh.Handoff;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Starts drainers, on the {@link DrainerPool}'s threads, for slots the hand-off reserved. */
@ApplicationScoped
public class DrainerStarter implements Sweep.Drainers {

    private static final Logger LOG = Logger.getLogger(DrainerStarter.class.getName());

    @EJB
    Drainer drainer;

    @EJB
    DrainerPool pool;

    @Inject
    EngineResources resources;

    /**
     * Starts a drainer in {@code slot}, already reserved; gives the slot back if it cannot start (the pool stopped,
     * or the container refused the call while the deployment stops). Never waits for the drainer.
     */
    public void start(DrainerOrigin origin, Handoff.Slot slot) {
        try {
            pool.execute(() -> {
                try {
                    drainer.drain(origin, slot);
                } catch (RuntimeException e) {
                    notStarted(slot, e); // a no-op for a slot its drainer already ended
                }
            });
        } catch (RuntimeException e) {
            notStarted(slot, e);
        }
    }

    private static void notStarted(Handoff.Slot slot, RuntimeException e) {
        slot.startFailed();
        LOG.log(Level.WARNING, "could not start a drainer; the sweep will pick up the marks", e);
    }

    private final java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean();

    /** Starts the probes of suspended projections on a drainer thread, unless the last ones are still running. */
    public void startProbes() {
        if (!probing.compareAndSet(false, true)) {
            return;
        }
        try {
            pool.execute(() -> {
                try {
                    drainer.probe();
                } finally {
                    probing.set(false);
                }
            });
        } catch (RuntimeException e) {
            probing.set(false);
            LOG.log(Level.WARNING, "could not start the probes of suspended projections", e);
        }
    }

    /** Starts a drainer if a slot is free; false when all are busy (they will find the work themselves). */
    public boolean startIfSlotFree(DrainerOrigin origin) {
        Handoff.Slot slot = resources.handoff().tryReserve();
        if (slot == null) {
            return false;
        }
        start(origin, slot);
        return true;
    }
}
