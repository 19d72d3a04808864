package dev.projections.it.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projections;
import dev.projections.demo.orders.entity.Customer;
import dev.projections.demo.orders.entity.Order;
import dev.projections.engine.Foundation;
import dev.projections.it.support.Await;
import dev.projections.it.support.BusyApplication;
import dev.projections.it.support.CommitRecorder;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.GatedProjection;
import dev.projections.it.support.IdentityProbe;
import dev.projections.it.support.RecordingTenantScope;
import dev.projections.it.support.Rows;
import dev.projections.refresh.DrainerOrigin;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The engine running by itself (hand-off and drainers; the sweep too slow to matter): counts and bounds. */
@ExtendWith(ArquillianExtension.class)
class AutoRefreshIT {

    private static final int WORKERS = 4;

    @Deployment
    static EnterpriseArchive deployment() {
        // gated may have every worker (unset, it would have one fewer, D45): these tests are of the instance's bound
        return Deployments.ear(Map.of("projection.sweep-interval", "1h", "projection.workers", String.valueOf(WORKERS),
                        "projection.gated.workers", String.valueOf(WORKERS)),
                List.of(GatedProjection.class, RecordingTenantScope.class, IdentityProbe.class), AutoRefreshIT.class,
                BusyApplication.class);
    }

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    @Resource
    UserTransaction transaction;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Foundation engine;

    @Inject
    Projections projections;

    @Inject
    dev.projections.ee.EngineRuntime runtime;

    @Inject
    GatedProjection gated;

    @Inject
    CommitRecorder recorder;

    @jakarta.ejb.EJB
    BusyApplication busy;

    @BeforeEach
    void tables() throws Exception {
        GatedProjection.createTables(dataSource);
    }

    @Test
    void threeMarksOfOneKeyInOneTransactionAreRefreshedOnce() throws Exception {
        transaction.begin();
        Customer customer = new Customer("", "three-" + UUID.randomUUID());
        em.persist(customer);
        Order order = new Order("", customer, "NEW");
        em.persist(order);
        transaction.commit();
        MarkKey key = new MarkKey("order-search", "", String.valueOf(order.getId()));
        Rows rows = new Rows(dataSource);
        Await.until("the first refresh of " + key, () -> recorder.refreshed(key).size() == 1);

        transaction.begin();
        Order managed = em.find(Order.class, order.getId());
        managed.setStatus("PAID");
        em.persist(managed.addLine("a", 1, BigDecimal.ONE));
        em.persist(managed.addLine("b", 2, BigDecimal.ONE));
        transaction.commit();

        Await.until("the mark of " + key + " acked", () -> recorder.refreshed(key).size() >= 2
                && !rows.exists("SELECT 1 FROM projection_pending WHERE projection = 'order-search' AND entity_id = ?",
                key.entityId()));
        assertThat(recorder.refreshed(key)).as("one refresh for the three marks").hasSize(2);
        assertThat(rows.one("SELECT line_count, status FROM order_search WHERE order_id = ?", order.getId()))
                .containsExactly(2, "PAID");
    }

    @Test
    void aBurstOfFiveThousandCommitsDrainsWithAtMostWorkersDrainersAndRefreshesAtOnce() {
        long drainers = engine.stats().drainersStarted(DrainerOrigin.HANDOFF);
        String prefix = "burst-" + UUID.randomUUID() + "-";
        for (int i = 0; i < 5_000; i++) {
            projections.markDirty(GatedProjection.NAME, prefix + i); // each written and announced at once
        }
        Rows rows = new Rows(dataSource);
        Await.until("the burst to drain", Duration.ofMinutes(3), () ->
                rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated' AND entity_id LIKE ?",
                        prefix + "%") == 0);

        assertThat(runtime.assembled().refresh().peakDraining()).as("drainers seen draining at once by the engine")
                .isBetween(1, WORKERS);
        assertThat(gated.peakRunning()).as("refreshes running at once").isLessThanOrEqualTo(WORKERS);
        assertThat(engine.stats().drainersStarted(DrainerOrigin.HANDOFF) - drainers)
                .as("drainers started, far fewer than commits").isLessThan(5_000);
    }

    @Test
    void aResumeThatFindsABacklogPutsEveryWorkerOnIt() {
        // paused, the burst's marks are written but not claimed; the hand-off's drainers end empty-handed
        String prefix = "backlog-" + UUID.randomUUID() + "-";
        projections.pause(GatedProjection.NAME);
        for (int i = 0; i < 2_000; i++) {
            projections.markDirty(GatedProjection.NAME, prefix + i);
        }
        Await.until("the hand-off's drainers to end", () -> runtime.assembled().handoff().inFlight() == 0);
        long backlogDrainers = engine.stats().drainersStarted(DrainerOrigin.BACKLOG);
        java.util.concurrent.CountDownLatch release = gated.holdAll();
        Rows rows = new Rows(dataSource);
        try {
            // the resume starts one drainer; each drainer whose claim comes back full calls one more
            projections.resume(GatedProjection.NAME);
            Await.until("every worker refreshing the backlog at once", () -> gated.running() == WORKERS);
        } finally {
            release.countDown();
            gated.reset();
        }
        assertThat(engine.stats().drainersStarted(DrainerOrigin.BACKLOG) - backlogDrainers)
                .as("drainers started by a drainer that found a backlog").isGreaterThanOrEqualTo(WORKERS - 1);
        Await.until("the backlog to drain", Duration.ofMinutes(3), () ->
                rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated' AND entity_id LIKE ?",
                        prefix + "%") == 0);
    }

    @Inject
    dev.projections.ee.PauseState pauseState;

    @Resource
    jakarta.enterprise.concurrent.ManagedExecutorService executor;

    /**
     * The engine review's E7: a resume in the caller's transaction, while a drainer reads the pauses (and caches
     * "paused") before that transaction commits. The backlog is another instance's (written by SQL, never offered
     * to this one's hand-off) and the sweep is an hour away: only the resume's own look can find it.
     */
    @Test
    void aResumeInATransactionLooksAtItsBacklogAfterTheCommitThoughADrainerCachedThePauseJustBefore() throws Exception {
        String prefix = "resumed-" + UUID.randomUUID() + "-";
        projections.pause(GatedProjection.NAME);
        List<MarkKey> backlog = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            backlog.add(new MarkKey(GatedProjection.NAME, "", prefix + String.format("%03d", i)));
        }
        try (Connection connection = dataSource.getConnection()) {
            engine.store().queue().upsert(connection, backlog, dev.projections.store.PendingQueue.LIVE,
                    engine.clock().instant());
        }
        Await.until("the hand-off's drainers to end", () -> runtime.assembled().handoff().inFlight() == 0);
        Rows rows = new Rows(dataSource);

        transaction.begin();
        projections.resume(GatedProjection.NAME);
        // a drainer's read of the pauses while the resume is not committed: on another thread, it sees "paused"
        assertThat(executor.submit(() -> pauseState.paused()).get(30, java.util.concurrent.TimeUnit.SECONDS))
                .as("the pauses a drainer reads before the commit").contains(GatedProjection.NAME);
        transaction.commit();

        Await.until("the other instance's backlog to drain after the resume", () ->
                rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated' AND entity_id LIKE ?",
                        prefix + "%") == 0);
    }

    @Test
    void aRefreshStartedByTheHandoffRunsAsTheSystemIdentity() {
        String id = "identity-" + UUID.randomUUID();
        projections.markDirty(GatedProjection.NAME, id);
        Await.until("the refresh of " + id, () -> !gated.calls(id).isEmpty());
        assertThat(gated.calls(id)).extracting(GatedProjection.Call::asSystem).containsOnly(true);
    }

    @Test
    void anApplicationThatFillsTheEjbThreadPoolDoesNotHoldUpRefreshes() {
        // far more asynchronous calls than the server's EJB pool has threads: most of them wait in its queue
        int calls = 200;
        AtomicInteger running = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        try {
            for (int i = 0; i < calls; i++) {
                busy.occupy(running, release);
            }
            Await.until("the application's calls to fill the EJB pool", () -> running.get() > 0);
            String id = "starved-" + UUID.randomUUID();
            projections.markDirty(GatedProjection.NAME, id);
            Await.until("the refresh of " + id + " while the EJB pool is full", () -> !gated.calls(id).isEmpty());
            assertThat(running.get()).as("application calls running: the EJB pool stayed full throughout")
                    .isLessThan(calls);
        } finally {
            release.countDown();
        }
    }

    @Test
    void drainersThatHoldEveryWorkerDoNotHoldUpTheApplicationsAsynchronousWork() {
        String prefix = "held-" + UUID.randomUUID() + "-";
        projections.pause(GatedProjection.NAME);
        for (int i = 0; i < 2_000; i++) {
            projections.markDirty(GatedProjection.NAME, prefix + i);
        }
        Await.until("the hand-off's drainers to end", () -> runtime.assembled().handoff().inFlight() == 0);
        CountDownLatch drainersHeld = gated.holdAll();
        AtomicInteger running = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        try {
            projections.resume(GatedProjection.NAME);
            Await.until("every worker held in a refresh", () -> gated.running() == WORKERS);
            busy.occupy(running, release);
            Await.until("the application's asynchronous call to run", () -> running.get() == 1);
        } finally {
            release.countDown();
            drainersHeld.countDown();
            gated.reset();
        }
        Rows rows = new Rows(dataSource);
        Await.until("the held marks to drain", Duration.ofMinutes(3), () ->
                rows.count("SELECT COUNT(*) FROM projection_pending WHERE projection = 'gated' AND entity_id LIKE ?",
                        prefix + "%") == 0);
    }
}
