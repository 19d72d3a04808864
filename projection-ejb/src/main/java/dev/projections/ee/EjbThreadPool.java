package dev.projections.ee;

import dev.projections.config.Settings;
import java.lang.management.ManagementFactory;
import java.util.OptionalInt;
import java.util.logging.Logger;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The size of WildFly's EJB thread pool, shared by {@code @Asynchronous} drainers and timers (SPEC §5):
 * {@code projection.workers} must stay below it, or drainers would take every thread and the sweep timer could
 * not run. Read through the server's JMX view of its management model where the jmx subsystem is present.
 */
final class EjbThreadPool {

    private static final Logger LOG = Logger.getLogger(EjbThreadPool.class.getName());
    private static final String POOL = "jboss.as:subsystem=ejb3,thread-pool=default";

    private EjbThreadPool() {
    }

    static void checkWorkers(Settings settings) {
        OptionalInt maxThreads = maxThreads();
        if (maxThreads.isPresent()) {
            settings.checkWorkersBelow(maxThreads.getAsInt());
        } else {
            LOG.warning("could not read the EJB thread pool's max-threads (no jmx subsystem); make sure "
                    + Settings.WORKERS + " (" + settings.workers() + ") stays below it");
        }
    }

    static OptionalInt maxThreads() {
        try {
            Object value = ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(POOL), "maxThreads");
            return value instanceof Number n ? OptionalInt.of(n.intValue()) : OptionalInt.empty();
        } catch (JMException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }
}
