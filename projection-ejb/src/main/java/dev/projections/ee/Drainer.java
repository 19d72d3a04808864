package dev.projections.ee;

import dev.projections.refresh.DrainerLauncher;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/**
 * The drainers' door (docs/contract.md §5): core's {@code DrainerLauncher} runs each drainer and each probe of
 * suspended projections through it, on a thread of the {@link DrainerPool}. An EJB only for its run-as identity and
 * its transaction attribute: outside any transaction, the engine opens a short one for each claim, refresh and
 * failure record.
 */
@Stateless
@LocalBean
@RunAs(SystemIdentity.ROLE)
@DeclareRoles(SystemIdentity.ROLE)
// with roles declared and no permission, WildFly would deny every call
@PermitAll
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Drainer {

    /**
     * Runs a drainer's work (it catches what it throws itself) under the engine's identity; only core's launcher
     * makes a {@code Work}, so this door runs nothing else.
     */
    public void run(DrainerLauncher.Work work) {
        work.run();
    }
}
