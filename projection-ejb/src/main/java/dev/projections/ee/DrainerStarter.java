package dev.projections.ee;

import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.Handoff;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Starts asynchronous drainers for slots the hand-off reserved. */
@ApplicationScoped
public class DrainerStarter {

    private static final Logger LOG = Logger.getLogger(DrainerStarter.class.getName());

    @EJB
    Drainer drainer;

    @Inject
    EngineResources resources;

    /** Starts a drainer in {@code slot}, already reserved; gives the slot back if the container refuses. */
    public void start(DrainerOrigin origin, Handoff.Slot slot) {
        try {
            drainer.drain(origin, slot);
        } catch (RuntimeException e) {
            slot.startFailed();
            LOG.log(Level.WARNING, "could not start a drainer; the sweep will pick up the marks", e);
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
