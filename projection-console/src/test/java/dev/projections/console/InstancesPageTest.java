package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;
import dev.projections.refresh.ClockSkewRule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The instances page flags a clock by the rule the engine warns by: beyond half the lease margin (contract §4); and it
 * shows each instance's role, and that nothing refreshes the marks when no processing instance is live (D54).
 */
class InstancesPageTest {

    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    private final ClockSkewRule rule = new ClockSkewRule(Duration.ofMinutes(2));

    @Test
    void aClockJustBeyondHalfTheMarginEitherWayIsFlaggedAndOneJustWithinIsNot() {
        assertThat(line(Duration.ofMillis(5_001)).isSkewed()).isTrue();
        assertThat(line(Duration.ofMillis(-5_001)).isSkewed()).isTrue();
        assertThat(line(Duration.ofMillis(4_999)).isSkewed()).isFalse();
        assertThat(line(Duration.ofMillis(-4_999)).isSkewed()).isFalse();
    }

    /** Review D5: 11 s was within the old tenth of the 2-minute lease (12 s), and more than the whole 10 s margin. */
    @Test
    void aClockElevenSecondsOffWithTheDefaultLeaseIsFlagged() {
        assertThat(line(Duration.ofSeconds(11)).isSkewed()).isTrue();
    }

    @Test
    void eachLineShowsItsRoleAndAProjectionNoProcessingInstanceDeploysIsUnprocessed() {
        InstanceReport web = new InstanceReport("web-1", NOW, NOW, 0, 0, 0, 0, Duration.ZERO, false);
        InstanceReport worker = new InstanceReport("worker-1", NOW.minusSeconds(60), NOW, 4, 0, 0, 0, Duration.ZERO,
                true);
        Instances instances = new Instances(List.of(web, worker), Map.of(
                "web-1", new TreeSet<>(Set.of("orders", "invoices")),
                "worker-1", new TreeSet<>(Set.of("orders")),
                "old-release", new TreeSet<>(Set.of("customers"))), NOW, Duration.ofSeconds(15), "web-1", rule.limit());

        assertThat(new InstanceLine(web, instances).getRole()).isEqualTo("web (refreshes nothing)");
        assertThat(new InstanceLine(worker, instances).getRole()).isEqualTo("processing");
        assertThat(instances.unprocessed()).as("an instance without a report is of an earlier release and processes")
                .containsExactly("invoices");
    }

    private InstanceLine line(Duration skew) {
        InstanceReport node = new InstanceReport("node-a", NOW, NOW, 4, 0, 0, 0, skew, true);
        return new InstanceLine(node, new Instances(List.of(node), Map.of(), NOW, Duration.ofSeconds(15),
                "node-a", rule.limit()));
    }
}
