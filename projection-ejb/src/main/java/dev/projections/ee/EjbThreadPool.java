package dev.projections.ee;

import dev.projections.config.Settings;
import java.util.OptionalInt;
import java.util.logging.Logger;

/**
 * The size of WildFly's EJB thread pool, shared by {@code @Asynchronous} drainers and timers (docs/contract.md §5):
 * {@code projection.workers} must stay below it, or drainers would take every thread and the sweep timer could
 * not run. The server provisioned by wildfly-config sizes the pool from the system property
 * {@code projection.ejb.max-threads} (set from {@code PROJECTION_EJB_MAX_THREADS}, default 16), so the same value
 * is read here; a server configured otherwise gets a warning. (Reading the management model through JMX at deployment failed on WildFly 39 with
 * "resource subsystem=ejb3 not found" and an ERROR line, so it is not attempted.)
 */
final class EjbThreadPool {

    private static final Logger LOG = Logger.getLogger(EjbThreadPool.class.getName());
    static final String MAX_THREADS = "projection.ejb.max-threads";

    private EjbThreadPool() {
    }

    static void checkWorkers(Settings settings) {
        OptionalInt maxThreads = maxThreads();
        if (maxThreads.isPresent()) {
            settings.checkWorkersBelow(maxThreads.getAsInt());
        } else {
            LOG.warning("could not tell the EJB thread pool's max-threads (" + MAX_THREADS + " is not set); keep "
                    + Settings.WORKERS + " (" + settings.workers() + ") below it");
        }
    }

    static OptionalInt maxThreads() {
        String value = System.getProperty(MAX_THREADS, System.getenv(Settings.environmentName(MAX_THREADS)));
        if (value == null || value.isBlank()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
