package dev.projections.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.refresh.EngineStats;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListenerFailuresTest {

    @Test
    void theCounterReadsTheEnginesCountPerProjectionAtEachScrape() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EngineStats stats = new EngineStats();
        ListenerFailures.register(registry, stats, List.of("orders", "customers"));

        stats.listenerFailed("orders");
        stats.listenerFailed("orders");

        assertThat(registry.get("projection.listener.failures").tag("projection", "orders").functionCounter().count())
                .isEqualTo(2.0);
        assertThat(registry.get("projection.listener.failures").tag("projection", "customers").functionCounter()
                .count()).isZero();
    }
}
