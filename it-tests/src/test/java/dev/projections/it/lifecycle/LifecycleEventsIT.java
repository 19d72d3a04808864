package dev.projections.it.lifecycle;

import dev.projections.engine.Foundation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projections;
import dev.projections.RebuildProgress;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.it.support.Await;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.HeldRebuildProjection;
import dev.projections.it.support.Rows;
import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.MarkParked;
import dev.projections.lifecycle.ProjectionResumed;
import dev.projections.lifecycle.ProjectionSuspended;
import dev.projections.lifecycle.RebuildEnded;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lifecycle events as an application sees them on the running server (docs/contract.md §6, §7): an observer in
 * the application's WAR is told of a parked mark, a suspension by the engine and by an operator, a resume by a probe
 * and by an operator, and a rebuild run that finished and one cancelled — each once its change committed. An observer
 * that throws changes nothing: the mark stays parked, the next one is parked too, the failure is counted.
 */
@ExtendWith(ArquillianExtension.class)
class LifecycleEventsIT {

    private static final String GATED = GatedProjection.NAME;
    private static final String HELD = HeldRebuildProjection.NAME;

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.earWithTestsInSecurityDomain("projections", Map.of("projection.max-attempts", "2",
                        "projection.suspend-after-failing-keys", "3", "projection.suspend-failure-percent", "50",
                        "projection.probe-interval", "1s", "projection.sweep-interval", "1s",
                        "projection.retry-delay", "1s", "projection.max-retry-delay", "1s"),
                List.of(GatedProjection.class, HeldRebuildProjection.class,
                        dev.projections.it.support.RecordingTenantScope.class,
                        dev.projections.it.support.IdentityProbe.class),
                LifecycleEventsIT.class, LifecycleRecorder.class, ConsoleUsers.class);
    }

    @Inject
    Projections projections;

    @Inject
    GatedProjection gated;

    @Inject
    HeldRebuildProjection held;

    @Inject
    LifecycleRecorder recorder;

    @Inject
    Foundation foundation;

    @Inject
    HttpServletRequest request;

    @EJB
    ConsoleAdmin admin;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void tables() throws Exception {
        GatedProjection.createTables(dataSource);
    }

    @AfterEach
    void cleanUp() throws ServletException {
        request.logout();
        gated.reset();
        held.release();
        projections.resume(GATED);
    }

    @Test
    void aParkedMarkIsToldWithItsErrorAndAnObserverThatThrowsChangesNothing() throws Exception {
        String once = "once-" + run;
        String throwing = "throwing-" + run;
        String after = "after-" + run;
        recorder.throwOnParked(throwing);
        long failuresBefore = foundation.stats().listenerFailures(GATED);
        gated.failForGood(once);
        gated.failForGood(throwing);
        gated.failForGood(after);
        projections.markDirty(GATED, List.of(once, throwing));

        Await.until("both parked marks told", () -> parked(once).isPresent() && parked(throwing).isPresent());
        MarkParked parked = parked(once).orElseThrow();
        assertThat(parked.projection()).isEqualTo(GATED);
        assertThat(parked.tenant()).isEmpty();
        assertThat(parked.attempts()).isEqualTo(1);
        assertThat(parked.error()).isEqualTo("dev.projections.NonRetryableRefreshException: gated non-retryable "
                + "failure of " + once);
        assertThat(thread(parked)).as("told on the engine's lifecycle thread, not the drainer that parked it")
                .isEqualTo("projection-lifecycle");

        Rows rows = new Rows(dataSource);
        assertThat(rows.exists("SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id = ?"
                + " AND parked_at IS NOT NULL", GATED, throwing)).as("parked, whatever the observer threw").isTrue();
        // the observer records the event, then throws: the count follows on the lifecycle thread
        Await.until("the observer's failure counted", () -> foundation.stats().listenerFailures(GATED) == failuresBefore + 1);
        projections.markDirty(GATED, after);
        Await.until("the next mark parked and told too", () -> parked(after).isPresent());
    }

    @Test
    void anOutageSuspendsTheProjectionAndAProbeResumesItBothTold() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add("outage-" + run + "-" + i);
        }
        int seenBefore = recorder.seen().size();
        gated.outage(true);
        projections.markDirty(GATED, ids);
        Await.until("the suspension told", () -> after(seenBefore, ProjectionSuspended.class).isPresent());
        ProjectionSuspended suspended = after(seenBefore, ProjectionSuspended.class).orElseThrow();
        assertThat(suspended.by()).isEqualTo("system");
        assertThat(suspended.reason()).contains("gated outage: backend unreachable");

        gated.outage(false);
        Await.until("the probe's resume told", () -> after(seenBefore, ProjectionResumed.class).isPresent());
        assertThat(after(seenBefore, ProjectionResumed.class).orElseThrow().by()).isEqualTo(ProjectionResumed.PROBE);
        assertThat(events(seenBefore)).as("suspended before resumed").extracting(e -> e.getClass().getSimpleName())
                .containsSubsequence("ProjectionSuspended", "ProjectionResumed");
    }

    @Test
    void anOperatorsSuspendAndResumeAreToldUnderTheirNameAndAResumeOfARunningProjectionIsNot() throws Exception {
        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        int seenBefore = recorder.seen().size();
        admin.resume(GATED); // running: nothing changes, nothing is told
        admin.suspend(GATED, "search cluster maintenance " + run);
        Await.until("the suspension told", () -> after(seenBefore, ProjectionSuspended.class).isPresent());
        ProjectionSuspended suspended = after(seenBefore, ProjectionSuspended.class).orElseThrow();
        assertThat(suspended.by()).isEqualTo(ConsoleUsers.ADMIN);
        assertThat(suspended.reason()).isEqualTo("search cluster maintenance " + run);

        admin.resume(GATED);
        Await.until("the resume told", () -> after(seenBefore, ProjectionResumed.class).isPresent());
        assertThat(after(seenBefore, ProjectionResumed.class).orElseThrow().by()).isEqualTo(ConsoleUsers.ADMIN);
        assertThat(events(seenBefore)).extracting(e -> e.getClass().getSimpleName())
                .containsExactly("ProjectionSuspended", "ProjectionResumed");
    }

    @Test
    void aRebuildRunThatFinishesAndOneCancelledAreToldWithTheirEndStateAndCounts() throws Exception {
        int seenBefore = recorder.seen().size();
        String finished = projections.rebuild(HELD);
        Await.until("the finished run told", java.time.Duration.ofSeconds(90), () -> ended(seenBefore, finished).isPresent());
        RebuildProgress run = ended(seenBefore, finished).orElseThrow().run();
        assertThat(run.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(run.marked()).isEqualTo(HeldRebuildProjection.IDS.size());
        assertThat(run.remaining()).isZero();
        assertThat(run.finishedAt()).isNotNull();

        held.hold();
        String cancelled = projections.rebuild(HELD);
        request.login(ConsoleUsers.ADMIN, ConsoleUsers.ADMIN_PASSWORD);
        admin.cancelRebuild(cancelled);
        Await.until("the cancelled run told", () -> ended(seenBefore, cancelled).isPresent());
        RebuildProgress cancel = ended(seenBefore, cancelled).orElseThrow().run();
        assertThat(cancel.state()).isEqualTo(RebuildProgress.CANCELLED);
        assertThat(cancel.cancelledBy()).isEqualTo(ConsoleUsers.ADMIN);
        assertThat(events(seenBefore).stream().filter(e -> e instanceof RebuildEnded)).as("each run told once")
                .hasSize(2);
    }

    private Optional<MarkParked> parked(String id) {
        return recorder.seen().stream().map(LifecycleRecorder.Seen::event).filter(MarkParked.class::isInstance)
                .map(MarkParked.class::cast).filter(p -> p.id().equals(id)).findFirst();
    }

    private String thread(LifecycleEvent event) {
        return recorder.seen().stream().filter(s -> s.event() == event).findFirst().orElseThrow().thread();
    }

    private List<LifecycleEvent> events(int from) {
        List<LifecycleRecorder.Seen> seen = recorder.seen();
        return seen.subList(Math.min(from, seen.size()), seen.size()).stream().map(LifecycleRecorder.Seen::event)
                .filter(e -> e.projection().equals(GATED) || e.projection().equals(HELD))
                .filter(e -> !(e instanceof MarkParked)).toList();
    }

    private <T extends LifecycleEvent> Optional<T> after(int from, Class<T> type) {
        return events(from).stream().filter(type::isInstance).map(type::cast).findFirst();
    }

    private Optional<RebuildEnded> ended(int from, String runId) {
        return after(from, RebuildEnded.class).isEmpty() ? Optional.empty()
                : events(from).stream().filter(RebuildEnded.class::isInstance).map(RebuildEnded.class::cast)
                        .filter(e -> e.run().runId().equals(runId)).findFirst();
    }
}
