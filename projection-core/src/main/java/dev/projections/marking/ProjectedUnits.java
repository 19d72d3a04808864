package dev.projections.marking;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The persistence units that have {@code @Projected} entities, registered by a provider's integration when a unit
 * starts (Hibernate's integrator, EclipseLink's session customizer) and removed when it closes; one registry per
 * deployment, since projection-core sits in the EAR's {@code lib/}. The EE layer asks it for the tenant of explicit
 * marks (docs/contract.md §8) and checks every unit against the engine's datasource ({@link #checkEach}). It names no
 * provider's types: an application on EclipseLink runs without Hibernate ORM on its class path.
 */
public final class ProjectedUnits {

    /**
     * A unit as the datasource check sees it: its name, the datasource its sessions write through (the object its
     * provider's connections unwrap, or {@code null}) and that datasource's JNDI name where the unit's properties
     * give it as text ({@code null} on WildFly, which hands Hibernate the object: the EE layer finds the name).
     */
    public record Unit(String name, DataSource dataSource, String dataSourceName) {

        /** The same unit with its datasource's JNDI name. */
        public Unit withDataSourceName(String jndiName) {
            return new Unit(name, dataSource, jndiName);
        }
    }

    /** A started unit, as its provider's integration describes it; equal for the same unit, so it can be removed. */
    public interface Started {

        Unit unit();

        /** Whether the unit keeps several tenants' data (its provider's multi-tenancy is on). */
        boolean multiTenant();

        /** The tenant the unit's own tenant resolution gives now, or {@code null}. */
        String currentTenant();
    }

    private static final Set<Started> UNITS = new CopyOnWriteArraySet<>();
    private static volatile Consumer<Unit> check;

    private ProjectedUnits() {
    }

    public static void register(Started unit) {
        // added before the check is read, as checkEach installs it before it reads the units: a unit starting while
        // the engine does is checked by one of the two (perhaps both), never by neither
        UNITS.add(unit);
        Consumer<Unit> installed = check;
        if (installed != null) {
            try {
                installed.accept(unit.unit()); // a unit started after the engine: fails its start
            } catch (RuntimeException e) {
                UNITS.remove(unit);
                throw e;
            }
        }
    }

    public static void unregister(Started unit) {
        UNITS.remove(unit);
    }

    /**
     * Runs {@code unitCheck} on every registered unit now and on every unit that starts later; a check that throws
     * fails the deployment (now: the caller's start-up; later: that unit's start).
     */
    public static void checkEach(Consumer<Unit> unitCheck) {
        check = unitCheck;
        for (Started unit : UNITS) {
            unitCheck.accept(unit.unit());
        }
    }

    /** The units started so far, as the datasource check sees them. */
    public static List<Unit> units() {
        return UNITS.stream().map(Started::unit).toList();
    }

    /** Whether a persistence unit with projected entities is multi-tenant. */
    public static boolean multiTenant() {
        return UNITS.stream().anyMatch(Started::multiTenant);
    }

    /** The first tenant a multi-tenant unit's own tenant resolution gives now, else {@code null}. */
    public static String currentTenant() {
        for (Started unit : UNITS) {
            String tenant = unit.currentTenant();
            if (tenant != null && !tenant.isEmpty()) {
                return tenant;
            }
        }
        return null;
    }
}
