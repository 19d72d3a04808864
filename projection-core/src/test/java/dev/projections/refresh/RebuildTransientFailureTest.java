package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import dev.projections.RebuildProgress;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A rebuild step that meets a timeout or a lost connection rolls back and is stepped again from its cursor once its
 * lease lapses (docs/contract.md §7): the run stays RUNNING and ends FINISHED. Any other failure of a step — an
 * {@code ids} that is wrong, a tenant scope that cannot be entered — fails the run with its error at once.
 */
class RebuildTransientFailureTest {

    static final List<String> IDS = IntStream.range(0, 30).mapToObj(i -> String.format("id-%02d", i)).toList();

    static final class FlakyProjection implements Projection {
        final List<String> refreshed = new CopyOnWriteArrayList<>();
        int calls;

        @Override
        public String name() {
            return "flaky";
        }

        @Override
        public void refresh(String id) {
            refreshed.add(id);
        }

        @Override
        public List<String> ids(String after, int limit) {
            if (++calls == 2) {
                throw new IllegalStateException("query failed", new SQLTransientConnectionException("connection reset"));
            }
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    }

    /** Lists {@link #IDS} in every tenant. */
    static final class ListedProjection implements Projection {
        final List<String> refreshed = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "p";
        }

        @Override
        public void refresh(String id) {
            refreshed.add(id);
        }

        @Override
        public List<String> ids(String after, int limit) {
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    }

    @Test
    void aStepWhoseTenantScopeCannotBeEnteredFailsTheRunWithTheScopesErrorRatherThanRetryingItEveryLease()
            throws Exception {
        EngineHarness harness = new EngineHarness("rebuild-scope-gone", Map.of("projection.batch-size", "10"),
                new ListedProjection());
        harness.tenantScope = tenant -> {
            throw new IllegalStateException("tenant " + tenant + " is not in the directory");
        };
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("p", "gone");

        for (int lease = 0; lease < 3; lease++) {
            while (engine.drain()) {
                // the step that cannot enter the tenant
            }
            harness.clock.advance(Duration.ofMinutes(10)); // past the step's lease: another step may take it over
        }

        RebuildProgress run = progress(harness, runId);
        assertThat(run.state()).isEqualTo(RebuildProgress.FAILED);
        assertThat(run.lastError()).isEqualTo("java.lang.IllegalStateException: tenant gone is not in the directory");
        assertThat(run.takeovers()).as("failed at the first step, never taken over").isZero();
        assertThat(run.marked()).isZero();
    }

    @Test
    void aStepWhoseTenantScopeMeetsALostConnectionIsSteppedAgainAfterItsLeaseAndTheRunFinishes() throws Exception {
        ListedProjection projection = new ListedProjection();
        EngineHarness harness = new EngineHarness("rebuild-scope-transient", Map.of("projection.batch-size", "10"),
                projection);
        java.util.concurrent.atomic.AtomicInteger entries = new java.util.concurrent.atomic.AtomicInteger();
        harness.tenantScope = tenant -> {
            if (entries.incrementAndGet() == 1) {
                throw new IllegalStateException("tenant directory unreachable",
                        new java.sql.SQLTransientConnectionException("connection reset"));
            }
            return () -> { };
        };
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("p", "t1");

        while (engine.drain()) {
            // the first step rolls back; its partition's lease holds the run back
        }
        assertThat(progress(harness, runId).state()).as("not failed by a transient error")
                .isEqualTo(RebuildProgress.RUNNING);

        harness.clock.advance(Duration.ofMinutes(10));
        while (engine.drain()) {
            // the whole run
        }
        RebuildProgress done = progress(harness, runId);
        assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(done.marked()).isEqualTo(IDS.size());
        assertThat(projection.refreshed).containsExactlyInAnyOrderElementsOf(IDS);
    }

    @Test
    void aStepThatFindsNoConnectionFreeInThePoolIsSteppedAgainAfterItsLeaseAndTheRunFinishes() throws Exception {
        // WildFly's blocking timeout is a plain SQLException naming IJ000655: no type says "transient"
        ListedProjection projection = new ListedProjection();
        EngineHarness harness = new EngineHarness("rebuild-pool-exhausted", Map.of("projection.batch-size", "10"),
                projection);
        java.util.concurrent.atomic.AtomicInteger entries = new java.util.concurrent.atomic.AtomicInteger();
        harness.tenantScope = tenant -> {
            if (entries.incrementAndGet() == 1) {
                throw new IllegalStateException(new java.sql.SQLException(
                        "javax.resource.ResourceException: IJ000655: No managed connections available within configured blocking timeout (30000 [ms])"));
            }
            return () -> { };
        };
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("p", "t1");

        while (engine.drain()) {
            // the first step rolls back; its partition's lease holds the run back
        }
        assertThat(progress(harness, runId).state()).as("not failed by an exhausted pool")
                .isEqualTo(RebuildProgress.RUNNING);
        harness.clock.advance(Duration.ofMinutes(10));
        while (engine.drain()) {
            // the whole run
        }
        assertThat(progress(harness, runId).state()).isEqualTo(RebuildProgress.FINISHED);
    }

    @Test
    void aTenantScopeWhoseCloseThrowsAfterEachStepCommittedNeitherFailsTheRunNorMarksAPageTwice() throws Exception {
        ListedProjection projection = new ListedProjection();
        EngineHarness harness = new EngineHarness("rebuild-scope-close", Map.of("projection.batch-size", "10"),
                projection);
        harness.tenantScope = tenant -> () -> {
            throw new IllegalStateException("could not restore the thread's tenant after " + tenant);
        };
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("p", "t1");

        for (int lease = 0; lease < 5; lease++) {
            while (engine.drain()) {
                // steps and refreshes, each closing a scope that throws
            }
            harness.clock.advance(Duration.ofMinutes(10));
        }

        RebuildProgress done = progress(harness, runId);
        assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(done.marked()).as("each page counted once").isEqualTo(IDS.size());
        assertThat(projection.refreshed).containsExactlyInAnyOrderElementsOf(IDS);
    }

    @Test
    void aStepWhoseIdsTimesOutIsSteppedAgainFromItsCursorAndTheRunFinishes() throws Exception {
        FlakyProjection projection = new FlakyProjection();
        EngineHarness harness = new EngineHarness("rebuild-transient", Map.of("projection.batch-size", "10"), projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("flaky");

        while (engine.drain()) {
            // until the flaky step: its partition's lease holds the run back
        }
        assertThat(progress(harness, runId).state()).as("not failed by a transient error").isEqualTo(RebuildProgress.RUNNING);

        harness.clock.advance(Duration.ofMinutes(10)); // the rolled-back step's lease lapses
        while (engine.drain()) {
            // the rest of the run
        }
        RebuildProgress done = progress(harness, runId);
        assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(done.marked()).as("each id once: the failed page was not counted").isEqualTo(IDS.size());
        assertThat(projection.refreshed).containsExactlyInAnyOrderElementsOf(IDS);
    }

    /** Lists {@link #IDS}; each call first runs {@code before}, which may throw. */
    static final class IdsThatMayThrow implements Projection {
        final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.function.IntConsumer before;

        IdsThatMayThrow(java.util.function.IntConsumer before) {
            this.before = before;
        }

        @Override
        public String name() {
            return "p";
        }

        @Override
        public void refresh(String id) {
        }

        @Override
        public List<String> ids(String after, int limit) {
            before.accept(calls.incrementAndGet());
            return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
        }
    }

    /**
     * The engine review's E3: PostgreSQL's driver says "a DBA terminated the backend" (57P01), "starting up" (57P03),
     * "too many connections" (53300) only by SQLState, wrapped by the persistence provider. A 4-hour run must not
     * fail for it.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"57P01", "57P03", "53300"})
    void aStepThatMeetsARoutineDatabaseEventIsSteppedAgainAfterItsLeaseAndTheRunFinishes(String sqlState)
            throws Exception {
        IdsThatMayThrow projection = new IdsThatMayThrow(call -> {
            if (call == 1) {
                throw new IllegalStateException("could not read the ids",
                        new java.sql.SQLException("FATAL: the database event " + sqlState, sqlState));
            }
        });
        EngineHarness harness = new EngineHarness("rebuild-event-" + sqlState, Map.of("projection.batch-size", "10"),
                projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("p");

        while (engine.drain()) {
            // the first step rolls back; its partition's lease holds the run back
        }
        assertThat(progress(harness, runId).state()).as("not failed by " + sqlState).isEqualTo(RebuildProgress.RUNNING);
        harness.clock.advance(Duration.ofMinutes(10));
        while (engine.drain()) {
            // the whole run
        }
        RebuildProgress done = progress(harness, runId);
        assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
        assertThat(done.takeovers()).as("taken over once, after the failed step's lease").isEqualTo(1);
        assertThat(done.marked()).isEqualTo(IDS.size());
    }

    /**
     * A failure that looks transient every time — here the commit's {@code RollbackException} of a transaction the
     * projection's own code doomed — ends its run after {@link StepFailures#MAX_TRANSIENT_FAILURES} steps in a row
     * rather than keeping it RUNNING, and its projection blocked, for ever.
     */
    @Test
    void aStepThatFailsAsTransientEveryTimeFailsItsRunAfterTheBound() throws Exception {
        IdsThatMayThrow projection = new IdsThatMayThrow(call -> {
            throw new IllegalStateException(new jakarta.transaction.RollbackException(
                    "ARJUNA016053: Could not commit transaction: marked for rollback by the projection's own call"));
        });
        EngineHarness harness = new EngineHarness("rebuild-doomed", Map.of("projection.batch-size", "10"), projection);
        RefreshEngine engine = harness.newEngineWithRebuilds(10);
        String runId = harness.startRebuild("p");

        for (int lease = 1; lease < StepFailures.MAX_TRANSIENT_FAILURES; lease++) {
            while (engine.drain()) {
                // one step that fails
            }
            harness.clock.advance(Duration.ofMinutes(10));
        }
        assertThat(progress(harness, runId).state()).as("retried until the bound").isEqualTo(RebuildProgress.RUNNING);
        assertThat(projection.calls).hasValue(StepFailures.MAX_TRANSIENT_FAILURES - 1);
        while (engine.drain()) {
            // the last step the bound allows
        }

        RebuildProgress failed = progress(harness, runId);
        assertThat(failed.state()).isEqualTo(RebuildProgress.FAILED);
        assertThat(failed.lastError()).contains("failed " + StepFailures.MAX_TRANSIENT_FAILURES + " times in a row")
                .contains("RollbackException");
    }

    private static RebuildProgress progress(EngineHarness harness, String runId) throws Exception {
        return harness.transactions.inNewTransaction(Duration.ofSeconds(5), connection ->
                harness.store.rebuildHistory().progress(connection, runId, harness.clock.instant()).orElseThrow());
    }
}
