package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A drainer that finds a backlog calls for help once per turn, so a sweep or a resume that starts one drainer
 * gets the other workers on the backlog at once (the EE drainer starts one more if a slot is free); a drainer with
 * less than a batch to do calls for nobody.
 */
class BacklogFanOutTest {

    private static final Projection QUIET = new Projection() {
        @Override
        public String name() {
            return "quiet";
        }

        @Override
        public void refresh(String id) {
        }
    };

    private final AtomicInteger callsForHelp = new AtomicInteger();

    @Test
    void aDrainerWhoseFirstClaimComesBackFullCallsForHelpOnceInItsTurn() throws Exception {
        EngineHarness harness = harness("fan-out-backlog");
        for (int i = 0; i < 35; i++) {
            harness.mark("quiet", "id-" + i);
        }

        assertThat(harness.newEngine().drain(projection -> callsForHelp.incrementAndGet(), helper -> { }, null, true)).isFalse();

        assertThat(callsForHelp).as("four batches drained, help asked at the first full one").hasValue(1);
        assertThat(harness.refreshed).hasSize(35);
    }

    @Test
    void aDrainerWithLessThanABatchToDoCallsForNobody() throws Exception {
        EngineHarness harness = harness("fan-out-small");
        for (int i = 0; i < 9; i++) {
            harness.mark("quiet", "id-" + i);
        }

        assertThat(harness.newEngine().drain(projection -> callsForHelp.incrementAndGet(), helper -> { }, null, true)).isFalse();

        assertThat(callsForHelp).hasValue(0);
        assertThat(harness.refreshed).hasSize(9);
    }

    private static EngineHarness harness(String database) throws Exception {
        return new EngineHarness(database, Map.of("projection.batch-size", "10"), QUIET);
    }
}
