package dev.projections.it.tenancy;

import dev.projections.demo.tenancy.DemoTenancy;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;

/** The {@code notes} unit's tenant: the demo's thread tenant ({@code X-Tenant}, or the refresh's scope). */
public class NotesTenantResolver implements CurrentTenantIdentifierResolver<String> {

    @Override
    public String resolveCurrentTenantIdentifier() {
        return DemoTenancy.current();
    }

    @Override
    public boolean validateExistingCurrentSessions() {
        return false;
    }
}
