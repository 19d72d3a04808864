package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Drainers that run dry look at the rebuild tables only while a run may have work (issue 30): once a look found
 * none, plain live traffic costs no rebuild statement, until a run is started here, its marks are claimed here, or
 * the sweep's look finds one another instance started.
 */
class RebuildPollingTest {

    /** Lists its ids in every tenant, and records what it refreshed. */
    private final RebuildTransientFailureTest.ListedProjection orders = new RebuildTransientFailureTest.ListedProjection();
    private final List<String> refreshed = orders.refreshed;
    private static final List<String> IDS = RebuildTransientFailureTest.IDS;

    @Test
    void aDrainerThatRunsDryWithNoRunLooksOnceAndThenSendsNoRebuildStatement() throws Exception {
        EngineHarness harness = new EngineHarness("rebuild-polling-quiet", Map.of(), orders);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        harness.mark("p", "1");
        engine.drain();
        assertThat(rebuildStatements(harness)).as("the first dry drainer looks").isNotEmpty();

        harness.statements.clear();
        harness.mark("p", "2");
        engine.drain();

        assertThat(refreshed).containsExactly("1", "2");
        assertThat(rebuildStatements(harness)).as("none once the look found no run").isEmpty();
    }

    @Test
    void aRunStartedHereAfterTheLookIsSteppedByTheNextDrainer() throws Exception {
        EngineHarness harness = new EngineHarness("rebuild-polling-started-here", Map.of(), orders);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        engine.drain(); // looks, finds none

        harness.startRebuild("p"); // the operations signal the engine once the run committed
        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }

        assertThat(refreshed).containsExactlyInAnyOrderElementsOf(IDS);
    }

    @Test
    void aRunAnotherInstanceStartedIsFoundByTheSweepsLookAndThenStepped() throws Exception {
        EngineHarness harness = new EngineHarness("rebuild-polling-elsewhere", Map.of(), orders);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        RebuildStepper stepper = harness.lastEngine().rebuilds();
        engine.drain(); // looks, finds none
        // another instance's run: this engine hears nothing of it
        harness.transactions.inNewTransaction(Duration.ofSeconds(5), connection ->
                harness.store.rebuildRuns().start(connection, "p", "", harness.clock.instant()));
        harness.statements.clear();

        engine.drain();
        assertThat(refreshed).as("not looked for until the sweep").isEmpty();
        assertThat(rebuildStatements(harness)).isEmpty();

        assertThat(stepper.lookForRuns()).as("the sweep's look").isTrue();
        while (engine.drain()) {
            // a turn ends after 5 s; the run needs far less
        }
        assertThat(refreshed).containsExactlyInAnyOrderElementsOf(IDS);
    }

    @Test
    void aSignalWhileTheLookRunsKeepsDrainersLookingThoughTheLookFoundNone() throws Exception {
        EngineHarness harness = new EngineHarness("rebuild-polling-signal", Map.of(), orders);
        harness.newEngineWithRebuilds(10);
        RebuildStepper stepper = harness.lastEngine().rebuilds();
        assertThat(stepper.lookForRuns()).isFalse();
        assertThat(stepper.mayHaveWork()).as("quiet after a look found none").isFalse();

        // a run commits and is signalled after the look read the signal count, before its query answers
        harness.beforeNextTransaction = stepper::runsMayExist;
        assertThat(stepper.lookForRuns()).as("its query saw no run").isFalse();

        assertThat(stepper.mayHaveWork()).as("the signal given during the look is not lost").isTrue();
    }

    private static List<String> rebuildStatements(EngineHarness harness) {
        return harness.statements.stream().filter(sql -> sql.contains("projection_rebuild")).toList();
    }
}
