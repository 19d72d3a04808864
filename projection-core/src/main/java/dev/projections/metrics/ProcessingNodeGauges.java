package dev.projections.metrics;

import dev.projections.refresh.EngineStats;
import dev.projections.refresh.ProcessingCount;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;

/**
 * {@code projection.nodes.processing{projection}} and {@code projection.node.processing} (docs/contract.md §9,
 * docs/design.md D54): how many live instances that process marks deploy each projection, as this instance's last
 * sweep counted them (NaN before its first count), and whether this instance is one of them (1) or a web node (0).
 * An alert on {@code projection_nodes_processing == 0} is the one that says a projection's marks are written and
 * nothing refreshes them.
 */
public final class ProcessingNodeGauges {

    private ProcessingNodeGauges() {
    }

    public static void register(MeterRegistry registry, EngineStats stats, boolean processing,
                                Collection<String> projections) {
        for (String projection : projections) {
            Gauge.builder("projection.nodes.processing", () -> deploying(stats, projection))
                    .description("live instances with projection.processing=true that deploy the projection, at this"
                            + " instance's last sweep; 0: nothing refreshes its marks")
                    .tag("projection", projection).strongReference(true).register(registry);
        }
        Gauge.builder("projection.node.processing", () -> processing ? 1 : 0)
                .description("1 when this instance claims and refreshes marks, 0 on a web node"
                        + " (projection.processing=false)")
                .strongReference(true).register(registry);
    }

    private static double deploying(EngineStats stats, String projection) {
        ProcessingCount count = stats.processing();
        return count == null ? Double.NaN : count.byProjection().getOrDefault(projection, 0);
    }
}
