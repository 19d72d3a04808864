package dev.projections.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

class ByNameRegistryTest {

    /**
     * As WildFly's deployment registry: by-name registrations reach {@code server}, a builder's stays here (in this
     * SimpleMeterRegistry itself), where nothing exports it.
     */
    static final class ForwardsByNameOnly extends SimpleMeterRegistry {
        final SimpleMeterRegistry server = new SimpleMeterRegistry();

        @Override
        public <T> T gauge(String name, Iterable<Tag> tags, T obj, ToDoubleFunction<T> f) {
            return server.gauge(name, tags, obj, f);
        }

        @Override
        public Timer timer(String name, Iterable<Tag> tags) {
            return server.timer(name, tags);
        }

        @Override
        public Search find(String name) {
            return server.find(name);
        }

        @Override
        public More more() {
            return server.more();
        }

        @Override
        public Meter remove(Meter meter) {
            return server.remove(meter);
        }
    }

    @Test
    void theEnginesBuilderRegisteredMetersReachTheServerRegistryByName() {
        ForwardsByNameOnly deployment = new ForwardsByNameOnly();
        MeterRegistry bridge = new ByNameRegistry(deployment);

        LagTimer lag = new LagTimer(bridge, Map.of("orders", Duration.ofSeconds(2))::get);
        lag.register(List.of("orders"));
        lag.refreshed(new MarkKey("orders", "", "1"), Instant.parse("2026-12-06T10:00:00Z"),
                Instant.parse("2026-12-06T10:00:00.250Z"));
        AtomicLong failures = new AtomicLong(3);
        FunctionCounter.builder("projection.listener.failures", failures, AtomicLong::get)
                .tag("projection", "orders").register(bridge);

        assertThat(deployment.server.find("projection.lag").tag("projection", "orders").timer().count()).isEqualTo(1);
        assertThat(deployment.server.find("projection.freshness.objective.seconds").tag("projection", "orders").gauge()
                .value())
                .isEqualTo(2.0);
        assertThat(deployment.server.find("projection.listener.failures").functionCounter().count()).isEqualTo(3.0);
        assertThat(deployment.getMeters()).as("nothing left where nothing exports it").isEmpty();
    }

    @Test
    void aStronglyReferencedGaugeKeepsItsValueInTheServerRegistry() {
        ForwardsByNameOnly deployment = new ForwardsByNameOnly();
        new ClockSkewGauges(() -> null, Duration.ofMillis(500)).register(new ByNameRegistry(deployment));
        // the value's lambda is referred to only by the gauge's function: a weak reference alone would lose it
        List<byte[]> pressure = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            pressure.add(new byte[1 << 20]);
        }
        pressure.clear();
        System.gc();

        assertThat(deployment.server.find("projection.clock.skew.limit.seconds").gauge().value()).isEqualTo(0.5);
    }

    @Test
    void closingRemovesFromTheServerRegistryEverythingRegisteredThereSoARedeploymentStartsAfresh() {
        ForwardsByNameOnly deployment = new ForwardsByNameOnly();
        ByNameRegistry first = new ByNameRegistry(deployment);
        new ClockSkewGauges(() -> null, Duration.ofMillis(500)).register(first);
        new LagTimer(first, name -> null).register(List.of("orders"));
        assertThat(deployment.server.getMeters()).isNotEmpty();

        first.close();
        assertThat(deployment.server.getMeters()).isEmpty();

        new ClockSkewGauges(() -> null, Duration.ofMillis(2000)).register(new ByNameRegistry(deployment));
        assertThat(deployment.server.find("projection.clock.skew.limit.seconds").gauge().value())
                .as("the new deployment's gauge, not the old one's").isEqualTo(2.0);
    }

    @Test
    void aGaugeIsFoundAgainByItsExactTagsAndCarriesItsUnitInItsName() {
        ForwardsByNameOnly deployment = new ForwardsByNameOnly();
        MeterRegistry bridge = new ByNameRegistry(deployment);
        Gauge.builder("projection.oldest.age", () -> 7).tag("projection", "orders")
                .tag("tenant", "a").baseUnit("seconds").strongReference(true).register(bridge);
        Gauge wider = Gauge
                .builder("projection.oldest.age", () -> 9).tag("projection", "orders").baseUnit("seconds")
                .strongReference(true).register(bridge);

        assertThat(wider.value()).as("not the gauge whose tags merely include these").isEqualTo(9.0);
        assertThat(deployment.server.find("projection.oldest.age.seconds").tag("tenant", "a").gauge().value())
                .isEqualTo(7.0);
    }

    @Test
    void aCustomMeterIsRefusedNamingIt() {
        MeterRegistry bridge = new ByNameRegistry(new SimpleMeterRegistry());
        assertThatThrownBy(() -> Meter.builder("custom", Meter.Type.OTHER, List.of()).register(bridge))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("custom");
    }
}
