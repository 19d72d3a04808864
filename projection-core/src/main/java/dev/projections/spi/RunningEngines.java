package dev.projections.spi;

import dev.projections.EngineHealth;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Supplier;

/**
 * The health of the engines started from this class loader — one per application, since the library lives in the
 * EAR's {@code lib/} or a WAR's {@code WEB-INF/lib}. Lets a health check outside the engine's module read it
 * without a CDI reference: a MicroProfile readiness check in {@code lib/} cannot see beans of the ejb-jar.
 */
public final class RunningEngines {

    private static final Set<Supplier<EngineHealth>> ENGINES = new CopyOnWriteArraySet<>();

    private RunningEngines() {
    }

    /** Called when an engine has started (its schema checked, its sweep scheduled). */
    public static void started(Supplier<EngineHealth> health) {
        ENGINES.add(health);
    }

    /** Called when an engine stops: from then on it is not ready. */
    public static void stopped(Supplier<EngineHealth> health) {
        ENGINES.remove(health);
    }

    /** The health of each running engine: empty before the first has started and after the last has stopped. */
    public static List<EngineHealth> health() {
        return ENGINES.stream().map(Supplier::get).toList();
    }
}
