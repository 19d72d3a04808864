package dev.projections.health.microprofile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.ClockSkew;
import dev.projections.EngineHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

class ProjectionsReadinessTest {

    @Test
    void notReadyBeforeTheEngineHasStarted() {
        HealthCheckResponse response = ProjectionsReadiness.responseFor(List.of());
        assertThat(response.getName()).isEqualTo("projections");
        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(response.getData().orElseThrow()).containsEntry("problem", "the projection engine has not started");
    }

    @Test
    void readyWhileHealthyEvenWithASuspendedProjectionAndNotReadyWhenTheDatabaseIsGone() {
        Instant sweep = Instant.parse("2026-12-01T10:00:00Z");
        HealthCheckResponse up = ProjectionsReadiness.responseFor(List.of(new EngineHealth(true, null, sweep,
                Duration.ofSeconds(3), Set.of("customer-stats"), Map.of("order-search", "12 of 12 failed"))));
        assertThat(up.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(up.getData().orElseThrow()).containsEntry("lastSweep", sweep.toString())
                .containsEntry("oldestDueAgeSeconds", 3L).containsEntry("suspendedProjections", "order-search")
                .containsEntry("pausedProjections", "customer-stats");

        HealthCheckResponse down = ProjectionsReadiness.responseFor(List.of(new EngineHealth(false,
                "database unreachable: connection refused", sweep, null, Set.of(), Map.of())));
        assertThat(down.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(down.getData().orElseThrow()).containsEntry("problem", "database unreachable: connection refused");
    }

    @Test
    void aClockBeyondItsLimitIsReportedAsDataAndKeepsTheInstanceReady() {
        HealthCheckResponse skewed = ProjectionsReadiness.responseFor(List.of(new EngineHealth(true, null,
                Instant.parse("2026-12-01T10:00:00Z"), Duration.ZERO, Set.of(), Map.of(),
                new ClockSkew(Duration.ofMillis(-5_001), Duration.ofSeconds(5)))));
        assertThat(skewed.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(skewed.getData().orElseThrow()).containsEntry("clockSkewMs", -5_001L)
                .containsEntry("clockSkewLimitMs", 5_000L).containsEntry("clockSkewed", true);

        HealthCheckResponse within = ProjectionsReadiness.responseFor(List.of(new EngineHealth(true, null,
                Instant.parse("2026-12-01T10:00:00Z"), Duration.ZERO, Set.of(), Map.of(),
                new ClockSkew(Duration.ofMillis(4_999), Duration.ofSeconds(5)))));
        assertThat(within.getData().orElseThrow()).containsEntry("clockSkewMs", 4_999L)
                .containsEntry("clockSkewed", false);
    }

    @Test
    void aWebNodeWithNoLiveProcessingInstanceStaysReadyAndSaysSo() {
        HealthCheckResponse web = ProjectionsReadiness.responseFor(List.of(new EngineHealth(true,
                "no instance that processes marks", Instant.parse("2026-12-01T10:00:00Z"), Duration.ZERO, Set.of(),
                Map.of(), null, false, 0)));
        assertThat(web.getStatus()).as("its requests are served; a restart would not start a processing node")
                .isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(web.getData().orElseThrow()).containsEntry("processing", false)
                .containsEntry("liveProcessingNodes", 0L).containsEntry("problem", "no instance that processes marks");
    }

    @Test
    void beforeTheFirstSweepMeasuredTheClockNoSkewIsReported() {
        HealthCheckResponse unmeasured = ProjectionsReadiness.responseFor(List.of(new EngineHealth(true, null, null,
                Duration.ZERO, Set.of(), Map.of())));
        assertThat(unmeasured.getData().orElseThrow()).doesNotContainKeys("clockSkewMs", "clockSkewed");
    }
}
