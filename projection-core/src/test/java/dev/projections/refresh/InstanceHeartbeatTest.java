package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.ClockSkew;
import dev.projections.Projection;
import dev.projections.store.NodeReport;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each sweep's heartbeat measures this instance's clock against the database's ({@code InstanceTable.databaseTime},
 * here H2's, which runs on this JVM's clock) and warns beyond half the lease margin (docs/contract.md §4, "Time").
 * Instances are engines with clocks of their own on one database, as in the review's D5.
 */
class InstanceHeartbeatTest {

    /** 200 ms either side of the limit: far more than an in-process query's round trip, far less than the limit. */
    private static final Duration JUST = Duration.ofMillis(200);

    private static final Logger LOG = Logger.getLogger(InstanceHeartbeat.class.getName());

    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private EngineHarness harness;

    @BeforeEach
    void setUp() throws Exception {
        LOG.addHandler(capture);
        Projection projection = new Projection() {
            @Override
            public String name() {
                return "order-search";
            }

            @Override
            public void refresh(String id) {
            }
        };
        harness = new EngineHarness("heartbeat-skew", Map.of(), projection);
    }

    @AfterEach
    void tearDown() {
        LOG.removeHandler(capture);
    }

    @Test
    void anInstanceJustOverHalfTheMarginFromTheDatabaseWarnsAndOneJustUnderOnTheOtherSideDoesNot() {
        Duration limit = new ClockSkewRule(harness.settings().leaseTime()).limit();
        EngineStats aheadStats = new EngineStats();
        EngineStats behindStats = new EngineStats();
        InstanceHeartbeat ahead = heartbeat("node-ahead", limit.plus(JUST), aheadStats);
        InstanceHeartbeat behind = heartbeat("node-behind", limit.minus(JUST).negated(), behindStats);

        ClockSkew aheadSkew = ahead.beat();
        assertThat(aheadSkew.exceeded()).isTrue();
        assertThat(aheadStats.clockSkew()).as("for health and metrics").isEqualTo(aheadSkew);
        assertThat(logged).singleElement().satisfies(record -> {
            assertThat(record.getLevel()).isEqualTo(Level.WARNING);
            assertThat(record.getMessage()).contains("by +" + aheadSkew.skew().toMillis() + " ms,")
                    .contains("beyond the 5000 ms allowed").contains("(NTP)");
        });

        logged.clear();
        ClockSkew behindSkew = behind.beat();
        assertThat(behindSkew.exceeded()).isFalse();
        assertThat(behindSkew.skew()).isNegative();
        assertThat(behindStats.clockSkew()).isEqualTo(behindSkew);
        assertThat(logged).as("within the limit: nothing to say").isEmpty();
    }

    @Test
    void twoInstancesJustUnderTheLimitOnEitherSideStaySilentAndAreWithinTheMarginOfEachOther() {
        Duration limit = new ClockSkewRule(harness.settings().leaseTime()).limit();
        ClockSkew a = heartbeat("node-a", limit.minus(JUST).negated(), new EngineStats()).beat();
        ClockSkew b = heartbeat("node-b", limit.minus(JUST), new EngineStats()).beat();

        assertThat(a.exceeded()).isFalse();
        assertThat(b.exceeded()).isFalse();
        assertThat(logged).isEmpty();
        assertThat(b.skew().minus(a.skew())).isLessThanOrEqualTo(
                new LeasePolicy(harness.settings().leaseTime()).margin());
    }

    @Test
    void theInstancesRowCarriesTheSkewItsLastBeatMeasured() throws Exception {
        InstanceHeartbeat heartbeat = heartbeat("node-ahead", Duration.ofSeconds(30), new EngineStats());
        ClockSkew measured = heartbeat.beat();
        heartbeat.report();

        try (Connection connection = harness.connect()) {
            NodeReport row = harness.store.nodes().list(connection).stream()
                    .filter(node -> node.instanceId().equals("node-ahead")).findFirst().orElseThrow();
            assertThat(row.clockSkew()).isEqualTo(Duration.ofMillis(measured.skew().toMillis()));
        }
    }

    /** An instance whose clock is {@code offset} from the system's, which is H2's. */
    private InstanceHeartbeat heartbeat(String instanceId, Duration offset, EngineStats stats) {
        AdjustableClock clock = new AdjustableClock();
        clock.advance(offset);
        return new InstanceHeartbeat(harness.store.instances(), harness.store.nodes(),
                () -> new InstanceHeartbeat.Activity(1, 0, 0, 0), harness.transactions, clock, harness.catalog(),
                instanceId, harness.settings().leaseTime(), stats, true, Duration.ofSeconds(90));
    }
}
