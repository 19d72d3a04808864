package dev.projections.it.protocol;

import dev.projections.engine.Foundation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.ee.EngineRuntime;
import dev.projections.it.support.CommitRecorder;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.IdentityProbe;
import dev.projections.it.support.RecordingTenantScope;
import dev.projections.it.support.Rows;
import dev.projections.refresh.RefreshEngine;
import dev.projections.RefreshOutcome;
import dev.projections.store.ClaimedMark;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The claim → refresh → ack protocol of docs/contract.md §4 where it meets the container: a read model in the pending table's
 * database written under JTA, the facade's retry and pause, the tenant scope bean. One interleaving per test,
 * forced with latches (a gate inside the refresh) and the engine's clock; refreshing is switched off, so the test
 * itself plays the workers. The protocol's other interleavings run without a server in projection-core's
 * {@code RefreshProtocolTest}, {@code SlowBatchTest} and {@code PendingQueueContract}.
 */
@ExtendWith(ArquillianExtension.class)
class RefreshProtocolIT {

    private static final Duration LEASE = Duration.ofMinutes(2);

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false", "projection.lease-time", "2m",
                        "projection.retry-delay", "5s", "projection.max-retry-delay", "20s"),
                List.of(GatedProjection.class, RecordingTenantScope.class, IdentityProbe.class), RefreshProtocolIT.class);
    }

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Resource
    ManagedExecutorService executor;

    @Inject
    Foundation foundation;

    @Inject
    EngineRuntime runtime;

    @Inject
    GatedProjection gated;

    @Inject
    dev.projections.Projections projections;

    @Inject
    dev.projections.ee.JtaTransactions transactions;

    @Inject
    dev.projections.ee.ProjectionRegistry registry;

    @Inject
    RecordingTenantScope tenants;

    @Inject
    CommitRecorder recorder;

    private RefreshEngine engine;
    private Rows rows;

    @BeforeEach
    void tables() throws Exception {
        engine = runtime.assembled().refresh();
        rows = new Rows(dataSource);
        GatedProjection.createTables(dataSource);
    }

    @AfterEach
    void reset() {
        foundation.clock().reset();
        gated.reset();
    }

    @Test
    void aWorkerStalledPastItsLeaseLosesTheKeyAndItsStaleWriteIsRepairedByTheNextRefresh() throws Exception {
        String id = newId();
        source(id, "v1");
        MarkKey key = mark(id, "");
        GatedProjection.Gate gate = gated.gate(id);
        List<ClaimedMark> stale = engine.steps().claim(List.of(key));
        Future<?> staleWorker = executor.submit(() -> engine.steps().refresh(stale));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).as("stale worker read v1").isTrue();

        foundation.clock().advance(LEASE.plusSeconds(1));
        source(id, "v2");
        mark(id, "");
        List<ClaimedMark> next = engine.steps().claim(List.of(key));
        assertThat(next).as("the lapsed lease lets another worker claim").hasSize(1);
        engine.steps().refresh(next);
        assertThat(model(id)).isEqualTo("v2");
        assertThat(pending(key)).isZero();

        gate.release.countDown();
        staleWorker.get(30, TimeUnit.SECONDS);
        assertThat(model(id)).as("the stale worker overwrote v2").isEqualTo("v1");
        assertThat(pending(key)).as("its missed ack marked the key again").isEqualTo(1);

        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(model(id)).isEqualTo("v2");
        assertThat(pending(key)).isZero();
        assertThat(recorder.refreshed(key)).extracting(CommitRecorder.Refreshed::outcome)
                .containsExactly(RefreshOutcome.SUCCESS, RefreshOutcome.REPEATED, RefreshOutcome.SUCCESS);
    }

    @Test
    void aStaleWriteThatResurrectsADeletedRowIsDeletedAgain() throws Exception {
        String id = newId();
        source(id, "v1");
        MarkKey key = mark(id, "");
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(model(id)).isEqualTo("v1");

        mark(id, "");
        GatedProjection.Gate gate = gated.gate(id);
        List<ClaimedMark> holder = engine.steps().claim(List.of(key));
        Future<?> worker = executor.submit(() -> engine.steps().refresh(holder));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();
        source(id, null); // the source is deleted while the refresh holds v1
        mark(id, "");
        gate.release.countDown();
        worker.get(30, TimeUnit.SECONDS);
        assertThat(model(id)).as("resurrected by the stale write").isEqualTo("v1");

        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(model(id)).as("no row once the source is gone").isNull();
        assertThat(pending(key)).isZero();
    }

    @Test
    void retryFailedMakesFailingMarksDueNowAndTheNextFailureContinuesTheBackoffWhereItStood() throws Exception {
        String id = newId();
        source(id, "v1");
        MarkKey key = mark(id, "");
        gated.failNext(id, 3);
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        foundation.clock().advance(Duration.ofSeconds(5));
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(backoff(key)).isEqualTo(Duration.ofSeconds(10));

        assertThat(projections.failing(GatedProjection.NAME)).isGreaterThanOrEqualTo(1);
        assertThat(projections.failures(GatedProjection.NAME, 1000)).filteredOn(f -> f.id().equals(id))
                .singleElement().satisfies(f -> {
                    assertThat(f.tenant()).isEmpty();
                    assertThat(f.attempts()).isEqualTo(2);
                    assertThat(f.lastError()).isEqualTo("java.lang.IllegalStateException: gated failure of " + id);
                    assertThat(f.nextRetry()).isEqualTo(f.lastFailedAt().plusSeconds(10));
                });
        assertThat(engine.steps().claim(List.of(key))).as("still backing off").isEmpty();

        assertThat(projections.retryFailed(GatedProjection.NAME)).isGreaterThanOrEqualTo(1);
        List<ClaimedMark> retried = engine.steps().claim(List.of(key));
        assertThat(retried).as("due now").hasSize(1);
        assertThat(retried.get(0).attempts()).as("attempts kept").isEqualTo(2);
        engine.steps().refresh(retried);
        assertThat(backoff(key)).as("the third failure waits 5 s × 2², not 5 s").isEqualTo(Duration.ofSeconds(20));

        projections.retry(GatedProjection.NAME, "", id);
        engine.steps().refresh(engine.steps().claim(List.of(key)));
        assertThat(pending(key)).isZero();
        assertThat(model(id)).isEqualTo("v1");
    }

    @Test
    void aPauseStopsThatProjectionOnlyOnEveryEngineAndReleasesItsClaimsUnstartedUntilResumed() throws Exception {
        String id = newId();
        source(id, "v1");
        MarkKey gatedKey = mark(id, "");
        MarkKey otherKey = new MarkKey("customer-stats", "", "0");
        try (Connection connection = dataSource.getConnection()) {
            foundation.store().queue().upsert(connection, List.of(otherKey), 0, foundation.clock().instant());
        }
        List<ClaimedMark> claimedBeforeThePause = engine.steps().claim(List.of(gatedKey));
        // a second engine on the same database, as another instance would run it
        RefreshEngine other = new RefreshEngine(foundation.store(), transactions, foundation.clock(), foundation.settings(),
                new dev.projections.refresh.Handoff(100, 1), registry, dev.projections.TenantScope.NONE,
                dev.projections.refresh.RefreshObservers.of(dev.projections.RefreshListener.NONE,
                        new dev.projections.refresh.EngineStats()), null);

        projections.pause(GatedProjection.NAME);
        try {
            assertThat(projections.isPaused(GatedProjection.NAME)).isTrue();
            engine.steps().refresh(claimedBeforeThePause);
            assertThat(gated.calls(id)).as("claimed before the pause: released unstarted").isEmpty();
            assertThat(engine.steps().claim(List.of(gatedKey))).isEmpty();
            assertThat(other.steps().claim(List.of(gatedKey))).as("paused on the other engine too").isEmpty();
            List<ClaimedMark> others = other.steps().claim(List.of(otherKey));
            assertThat(others).as("other projections go on").hasSize(1);
            other.steps().refresh(others);
            assertThat(pending(otherKey)).isZero();
            mark(id, "");
            assertThat(pending(gatedKey)).as("marks keep accumulating").isEqualTo(1);
        } finally {
            projections.resume(GatedProjection.NAME);
        }
        assertThat(projections.isPaused(GatedProjection.NAME)).isFalse();
        other.steps().refresh(other.steps().claim(List.of(gatedKey)));
        assertThat(model(id)).isEqualTo("v1");
        assertThat(pending(gatedKey)).isZero();
    }

    @Resource
    jakarta.transaction.UserTransaction userTransaction;

    /**
     * The engine review's E2: the facade's retry inside the application's transaction commits on its own. In that
     * transaction it held the key's row until the commit, which upserts the transaction's own marks then, in key
     * order: with another commit marking both keys (a lower one first) the two waited for each other.
     */
    @Test
    void aRetryInsideTheApplicationsTransactionHoldsNoMarkUntilThatTransactionCommits() throws Exception {
        String high = "z-" + newId();
        String low = "a-" + newId();
        MarkKey failing = mark(high, "");
        gated.failNext(high, 1);
        engine.steps().refresh(engine.steps().claim(List.of(failing)));
        assertThat(projections.failures(GatedProjection.NAME, 1000)).extracting(f -> f.id()).contains(high);

        userTransaction.begin();
        try {
            projections.retry(GatedProjection.NAME, "", high);
            // another commit marking both keys in key order, the lower first: it waited for the retried row
            Future<?> other = executor.submit(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    foundation.store().queue().upsert(connection, List.of(key(low, ""), failing), 0,
                            foundation.clock().instant());
                }
                return null;
            });
            other.get(30, TimeUnit.SECONDS);
            projections.markDirty(GatedProjection.NAME, low); // this transaction's own mark, written at its commit
            userTransaction.commit();
        } finally {
            if (userTransaction.getStatus() != jakarta.transaction.Status.STATUS_NO_TRANSACTION) {
                userTransaction.rollback();
            }
        }

        assertThat(pending(failing)).isEqualTo(1);
        assertThat(pending(key(low, ""))).isEqualTo(1);
        assertThat(projections.failures(GatedProjection.NAME, 1000)).as("retried: due now, its attempts kept")
                .filteredOn(f -> f.id().equals(high)).singleElement()
                .satisfies(f -> assertThat(f.nextRetry()).isBeforeOrEqualTo(foundation.clock().instant()));
    }

    @Test
    void retryOfAKeyWithoutAFailingMarkIsRefusedNamingTheKey() {
        String id = newId();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> projections.retry(GatedProjection.NAME, "", id))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(id);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> projections.retry("nope", "", id))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown projection \"nope\"");
    }

    @Test
    void eachMarkIsRefreshedAsItsTenantAndTheThreadsContextIsRestoredAfterSuccessAndFailure() throws Exception {
        String id = newId();
        source(id, "v1");
        MarkKey inA = mark(id, "tenant-a");
        MarkKey inB = mark(id, "tenant-b");
        MarkKey none = mark(id, "");
        gated.failNext(id, 1); // the first of the three fails
        int entered = tenants.entered();

        engine.steps().refresh(engine.steps().claim(List.of(inA, inB, none)));

        assertThat(gated.calls(id)).extracting(GatedProjection.Call::tenant)
                .containsExactlyInAnyOrder("tenant-a", "tenant-b", null);
        assertThat(tenants.entered() - entered).as("no tenant on the row: none entered").isEqualTo(2);
        assertThat(tenants.exited()).isEqualTo(tenants.entered());
        assertThat(tenants.current()).as("this thread's context after the refreshes").isNull();
        assertThat(rows.count("SELECT COUNT(*) FROM projection_pending WHERE entity_id = ?", id))
                .as("two refreshed, one failed and backing off").isEqualTo(1);
    }

    private static String newId() {
        return UUID.randomUUID().toString();
    }

    private static MarkKey key(String id, String tenant) {
        return new MarkKey(GatedProjection.NAME, tenant, id);
    }

    /** Marks as a committed business change would (the upsert rule), at the engine's time. */
    private MarkKey mark(String id, String tenant) throws Exception {
        MarkKey key = key(id, tenant);
        try (Connection connection = dataSource.getConnection()) {
            foundation.store().queue().upsert(connection, List.of(key), 0, foundation.clock().instant());
        }
        return key;
    }

    private void source(String id, String value) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM gated_source WHERE id = ?")) {
                delete.setString(1, id);
                delete.executeUpdate();
            }
            if (value != null) {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO gated_source (id, value) VALUES (?, ?)")) {
                    insert.setString(1, id);
                    insert.setString(2, value);
                    insert.executeUpdate();
                }
            }
        }
    }

    private String model(String id) {
        List<List<Object>> found = rows.all("SELECT value FROM gated_model WHERE id = ?", id);
        return found.isEmpty() ? null : (String) found.get(0).get(0);
    }

    private long pending(MarkKey key) {
        return rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND tenant_id = ? AND entity_id = ?",
                key.projection(), key.tenantId(), key.entityId());
    }

    private Duration backoff(MarkKey key) {
        List<Object> row = rows.one("""
                SELECT available_at, last_failed_at FROM projection_pending
                 WHERE projection = ? AND tenant_id = ? AND entity_id = ?""", key.projection(), key.tenantId(), key.entityId());
        return Duration.between(((Timestamp) row.get(1)).toInstant(), ((Timestamp) row.get(0)).toInstant());
    }

}
