package dev.projections.ee;

import dev.projections.refresh.DatabaseTroubleException;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.Handoff;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A drainer (docs/contract.md §5): holds one of the hand-off's {@code workers} slots while it claims and refreshes
 * marks, then gives the slot back, or passes it to a new drainer when keys arrived meanwhile. It runs on a thread
 * of the {@link DrainerPool}, called by {@link DrainerStarter}, and outside any transaction; the engine opens a
 * short one for each claim, refresh and failure record. An EJB for its run-as identity and transaction attribute.
 */
@Stateless
@LocalBean
@RunAs(SystemIdentity.ROLE)
@DeclareRoles(SystemIdentity.ROLE)
// with roles declared and no permission, WildFly would deny every call
@PermitAll
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Drainer {

    private static final Logger LOG = Logger.getLogger(Drainer.class.getName());

    @Inject
    EngineRuntime runtime;

    @Inject
    EngineResources resources;

    @Inject
    DrainerStarter starter;

    @Inject
    DatabaseTroubleLog troubles;

    /**
     * The probes of suspended projections (docs/contract.md §6), on a drainer's thread and identity rather than
     * the sweep's: a probe is a refresh, and the sweep only starts work and returns.
     */
    public void probe() {
        try {
            runtime.engine().probeSuspended();
        } catch (DatabaseTroubleException e) {
            troubles.record(e);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "probing suspended projections failed; the next sweep tries again", e);
        }
    }

    /** Drains in {@code slot}, reserved by the caller; ends by giving the slot back or passing it on. */
    public void drain(DrainerOrigin origin, Handoff.Slot slot) {
        if (!slot.run()) {
            return; // its slot was taken back by the sweep while it waited to run
        }
        boolean moreWork = false;
        try {
            resources.stats().drainerStarted(origin);
            moreWork = runtime.engine().drain(() -> starter.startIfSlotFree(DrainerOrigin.BACKLOG));
        } catch (DatabaseTroubleException e) {
            troubles.record(e);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "drainer ended on an unexpected error; the sweep will pick up its marks", e);
        } finally {
            Handoff.Slot successor = slot.finish(moreWork, runtime.engine().stopping());
            if (successor != null) {
                starter.start(DrainerOrigin.HANDOFF, successor);
            }
        }
    }
}
