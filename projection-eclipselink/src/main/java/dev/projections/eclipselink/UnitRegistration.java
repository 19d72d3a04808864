package dev.projections.eclipselink;

import dev.projections.marking.ProjectedUnits;
import org.eclipse.persistence.sessions.SessionEvent;
import org.eclipse.persistence.sessions.SessionEventAdapter;

/**
 * Registers the unit with the engine's registry once it has logged in (its datasource known), and removes it at logout:
 * the engine takes the units' datasource when {@code projection.datasource} is not set, and a unit on another
 * datasource than the engine's fails its start (docs/contract.md §10).
 */
final class UnitRegistration extends SessionEventAdapter {

    @Override
    public void postLogin(SessionEvent event) {
        ProjectedUnits.register(new EclipseLinkUnit(event.getSession()));
    }

    @Override
    public void preLogout(SessionEvent event) {
        ProjectedUnits.unregister(new EclipseLinkUnit(event.getSession()));
    }
}
