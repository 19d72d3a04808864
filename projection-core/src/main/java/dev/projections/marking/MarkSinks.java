package dev.projections.marking;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

/**
 * Finds the {@link MarkSink} a provider's integration delivers to. The integrations are created by the JPA provider,
 * not by CDI, so they look the sink up: in a server the EE layer's application-scoped bean, found once per
 * deployment (a CDI lookup is not free on a commit's path, and these classes are the deployment's own); in plain
 * Java, where no CDI container runs, the sink {@link #install installed} by the application or test.
 */
public final class MarkSinks {

    private static volatile MarkSink found;

    private MarkSinks() {
    }

    /** The sink; fails naming the module to add when a projected entity changes and none is deployed. */
    public static MarkSink require() {
        MarkSink sink = deployed();
        if (sink == null) {
            throw new IllegalStateException("An entity annotated @Projected changed, but no MarkSink bean is "
                    + "deployed: add the projection-ejb module to the EAR");
        }
        return sink;
    }

    /** The sink, or {@code null} when none is deployed or installed. */
    public static MarkSink deployed() {
        MarkSink sink = found;
        if (sink != null) {
            return sink;
        }
        try {
            Instance<MarkSink> bean = CDI.current().select(MarkSink.class);
            if (!bean.isResolvable()) {
                return null;
            }
            found = bean.get();
            return found;
        } catch (IllegalStateException noCdiContainer) {
            return null;
        }
    }

    /** Outside a CDI container: the sink marks go to until {@code null} is installed. */
    public static void install(MarkSink sink) {
        found = sink;
    }
}
