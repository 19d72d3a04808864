package dev.projections.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.refresh.EngineStats;
import dev.projections.refresh.ProcessingCount;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The gauges an alert on "nothing refreshes this projection's marks" reads (docs/design.md D54). */
class ProcessingNodeGaugesTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EngineStats stats = new EngineStats();

    @Test
    void eachProjectionReadsTheLiveProcessingInstancesThatDeployItAtTheLastCountAndNothingBeforeTheFirst() {
        ProcessingNodeGauges.register(registry, stats, false, List.of("orders", "invoices"));

        assertThat(nodes("orders")).as("not counted yet: no reading, not zero").isNaN();
        stats.processingCounted(new ProcessingCount(2, Map.of("orders", 2, "invoices", 0), 1));

        assertThat(nodes("orders")).isEqualTo(2.0);
        assertThat(nodes("invoices")).as("the alert's case").isZero();
        assertThat(registry.get("projection.node.processing").gauge().value()).as("a web node").isZero();
    }

    @Test
    void aProcessingInstanceSaysSo() {
        ProcessingNodeGauges.register(registry, stats, true, List.of("orders"));
        assertThat(registry.get("projection.node.processing").gauge().value()).isEqualTo(1.0);
    }

    private double nodes(String projection) {
        return registry.get("projection.nodes.processing").tag("projection", projection).gauge().value();
    }
}
