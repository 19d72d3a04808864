package dev.projections.it.support;

import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.PermitAll;
import jakarta.ejb.EJBContext;
import jakarta.ejb.Stateless;

/** A secured-domain EJB a projection may call: tells whether its caller has the engine's system role. */
@Stateless
@PermitAll
@DeclareRoles("projection-system")
public class IdentityProbe {

    @Resource
    EJBContext context;

    public boolean callerIsSystem() {
        return context.isCallerInRole("projection-system");
    }
}
