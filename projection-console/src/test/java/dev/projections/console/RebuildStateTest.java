package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.RebuildProgress;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RebuildStateTest {

    private static final Instant STARTED = Instant.parse("2030-01-01T10:00:00Z");

    private static RebuildProgress run(String state, long remaining, long failing) {
        return new RebuildProgress("r1", "order-search", "", state, 1200, remaining, failing, 10.0, STARTED,
                RebuildProgress.RUNNING.equals(state) ? null : STARTED.plusSeconds(120), null);
    }

    @Test
    void aRunThatFinishedWithFailingMarksSaysHowManyFail() {
        assertThat(ProjectionRow.describe(run(RebuildProgress.FINISHED_FAILING, 3, 3), STARTED.plusSeconds(180)))
                .startsWith("finished, 3 failing ");
    }

    @Test
    void aRunThatFinishedCleanlySaysFinishedAndARunningOneItsCounts() {
        assertThat(ProjectionRow.describe(run(RebuildProgress.FINISHED, 0, 0), STARTED.plusSeconds(180)))
                .startsWith("finished ");
        assertThat(ProjectionRow.describe(run(RebuildProgress.RUNNING, 40, 0), STARTED.plusSeconds(60)))
                .isEqualTo("running: 1,200 marked, 40 remaining");
    }

    @Test
    void aVerificationAmongTheRunsSaysHowManyOfTheIdsItCheckedDrifted() {
        RebuildProgress verification = new RebuildProgress("r2", "order-search", "", RebuildProgress.FINISHED, 3, 0, 0,
                500.0, STARTED, STARTED.plusSeconds(120), null, dev.projections.RebuildScope.everything(), 1, 1, "admin",
                null, 0, RebuildProgress.VERIFY, 60_000);
        assertThat(RebuildLine.stateOf(verification)).isEqualTo("verification finished: 3 of 60,000 checked drifted");
    }
}
