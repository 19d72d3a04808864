package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import dev.projections.RebuildScope;
import dev.projections.TenantDirectory;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.ProjectionResumed;
import dev.projections.lifecycle.ProjectionSuspended;
import dev.projections.refresh.DrainerLauncher;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.Transactions;
import dev.projections.store.LiquibaseSchema;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operations as the engine builds them: what they made due, paused or announced reaches the container's
 * after-commit work once, and through it the drainers and the observers — the one path from an operator's action to
 * the application (core → container once), with the container's transaction played by this test.
 */
class EngineOperationsTest {

    /** A container whose caller is inside a transaction this test commits or rolls back. */
    private static final class InTransaction implements Container {
        private final PlainContainer plain;
        final List<Runnable> onCommit = new ArrayList<>();
        final Map<String, Object> resources = new HashMap<>();

        InTransaction(PlainContainer plain) {
            this.plain = plain;
        }

        void commit() {
            List<Runnable> work = List.copyOf(onCommit);
            onCommit.clear();
            resources.clear();
            work.forEach(Runnable::run);
        }

        void rollback() {
            onCommit.clear();
            resources.clear();
        }

        @Override
        public void afterCommit(Runnable work) {
            onCommit.add(work);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T perTransaction(String key, Supplier<T> create) {
            return (T) resources.computeIfAbsent(key, k -> create.get());
        }

        @Override
        public Transactions transactions() {
            return plain.transactions();
        }

        @Override
        public Executor threads() {
            return plain.threads();
        }

        @Override
        public DrainerLauncher.RunAs runAs() {
            return plain.runAs();
        }

        @Override
        public Executor lifecycleThread() {
            return plain.lifecycleThread();
        }

        @Override
        public TenantScope tenantScope() {
            return plain.tenantScope();
        }

        @Override
        public Optional<TenantDirectory> tenantDirectory() {
            return plain.tenantDirectory();
        }

        @Override
        public Clock clock() {
            return plain.clock();
        }

        @Override
        public dev.projections.ops.Sql sql(javax.sql.DataSource dataSource, dev.projections.store.Tables store) {
            return plain.sql(dataSource, store);
        }
    }

    private final AtomicInteger drainersStarted = new AtomicInteger();
    private final AtomicInteger pausesChanged = new AtomicInteger();
    private final LinkedBlockingQueue<LifecycleEvent> told = new LinkedBlockingQueue<>();
    private final List<String> refreshed = new CopyOnWriteArrayList<>();
    private InTransaction transaction;
    private Engine engine;
    private JdbcDataSource dataSource;

    @BeforeEach
    void build() throws Exception {
        dataSource = new JdbcDataSource();
        dataSource.setURL(LiquibaseSchema.freshH2("engine_operations"));
        dataSource.setUser("sa");
        transaction = new InTransaction(PlainContainer.on(dataSource, drainer -> drainersStarted.incrementAndGet())
                .tenantDirectory(() -> List.of("acme", "globex"))
                .clock(Clock.fixed(java.time.Instant.parse("2026-12-05T10:00:00Z"), java.time.ZoneOffset.UTC)));
        engine = Engine.builder()
                .dataSource(dataSource)
                .container(transaction)
                .observers(Observers.NONE.lifecycle(told::add).pausesChanged(pausesChanged::incrementAndGet))
                .settings(Settings.defaults())
                .projections(ProjectionCatalog.of(orders()))
                .instanceId("operations-test")
                .build();
    }

    @AfterEach
    void stop() {
        engine.stop();
    }

    @Test
    void aResumeTellsThePausesItsEventAndADrainerOnlyOnceTheCallersTransactionCommitted() throws Exception {
        engine.operations().pauses().suspend("orders", "search cluster down", "alice");
        transaction.commit();
        assertThat(told.poll(10, TimeUnit.SECONDS)).isInstanceOf(ProjectionSuspended.class);
        int changedBefore = pausesChanged.get();
        int drainersBefore = drainersStarted.get();

        engine.operations().pauses().resume("orders", "alice");

        assertThat(pausesChanged).as("nothing before the commit").hasValue(changedBefore);
        assertThat(drainersStarted).hasValue(drainersBefore);
        assertThat(told.poll(200, TimeUnit.MILLISECONDS)).as("no event before the commit").isNull();

        transaction.commit();

        assertThat(pausesChanged.get()).as("the cached pauses forgotten once committed").isGreaterThan(changedBefore);
        assertThat(drainersStarted).as("a drainer looks at the resumed projection").hasValue(drainersBefore + 1);
        LifecycleEvent event = told.poll(10, TimeUnit.SECONDS);
        assertThat(event).isInstanceOf(ProjectionResumed.class);
        assertThat(((ProjectionResumed) event).by()).isEqualTo("alice");
    }

    @Test
    void aRolledBackResumeTellsNobody() throws Exception {
        engine.operations().pauses().suspend("orders", "backend down", "alice");
        transaction.commit();
        assertThat(told.poll(10, TimeUnit.SECONDS)).isInstanceOf(ProjectionSuspended.class);
        int changedBefore = pausesChanged.get();

        engine.operations().pauses().resume("orders", "alice");
        transaction.rollback();

        assertThat(pausesChanged).hasValue(changedBefore);
        assertThat(told.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void rebuildsStartedForEveryTenantOfTheDirectoryAreKeptAsTheTransactionsOwn() {
        List<String> runs = engine.operations().rebuilds().startForEveryTenant("orders", RebuildScope.everything(), 1,
                "carol");

        assertThat(runs).hasSize(2);
        @SuppressWarnings("unchecked")
        java.util.Set<String> started = (java.util.Set<String>) transaction.resources.values().iterator().next();
        assertThat(started).containsExactlyInAnyOrderElementsOf(runs);
        assertThat(drainersStarted).as("no drainer before the commit").hasValue(0);

        transaction.commit();

        assertThat(drainersStarted).as("the drainers look at the rebuild tables once the runs committed").hasValue(1);
    }

    @Test
    void theReadsSeeWhatTheOperationsDidThroughTheSameEngine() throws Exception {
        try (java.sql.Connection connection = dataSource.getConnection()) {
            engine.store().queue().upsert(connection, List.of(new dev.projections.MarkKey("orders", "", "1"),
                    new dev.projections.MarkKey("orders", "", "2")), 0, engine.clock().instant());
        }
        engine.operations().pauses().pause("orders", "alice");
        String runId = engine.operations().audited().rebuild("carol", "orders", "", dev.projections.RebuildScope.everything(), 1);
        transaction.commit();

        assertThat(engine.reads().count(dev.projections.inspect.MarkFilter.pending("orders")).value()).isEqualTo(2);
        assertThat(engine.reads().page(dev.projections.inspect.MarkFilter.pending("orders"), null, true, 10).rows())
                .hasSize(2);
        assertThat(engine.reads().audit(dev.projections.inspect.AuditFilter.ALL, null, 10))
                .extracting(dev.projections.inspect.AuditEntry::user, dev.projections.inspect.AuditEntry::action)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("carol", "rebuild"),
                        org.assertj.core.groups.Tuple.tuple("alice", "pause"));
        assertThat(engine.reads().partitions(runId)).hasSize(1);
        assertThat(engine.reads().instances().readAt()).isEqualTo(engine.clock().instant());
    }

    private Projection orders() {
        return new Projection() {
            @Override
            public String name() {
                return "orders";
            }

            @Override
            public void refresh(String id) {
                refreshed.add(id);
            }

            @Override
            public List<String> ids(String after, int limit) {
                return List.of();
            }
        };
    }
}
