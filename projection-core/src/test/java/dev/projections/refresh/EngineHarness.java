package dev.projections.refresh;

import dev.projections.RefreshOutcome;
import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.config.Settings;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The engine without a server: the real store on an H2 database made by the real changelog, plain JDBC
 * transactions, the engine's adjustable clock, and projections the test scripts. Each {@link #newEngine} plays
 * one more instance on the same database. Drives the claim → refresh → ack loop in milliseconds; what needs
 * WildFly (JTA timeouts, the reaper, {@code @Asynchronous}) stays in the it-tests.
 */
final class EngineHarness {

    record Refreshed(MarkKey key, RefreshOutcome outcome) {
    }

    /** A row of {@code projection_pending}, as far as these tests look at it. */
    record Row(String claimToken, int attempts, Instant availableAt, int priority, String lastError, long markCount,
               Instant claimedUntil) {
    }

    final AdjustableClock clock = new AdjustableClock();
    final Tables store = Tables.forProduct("H2");
    final List<Refreshed> refreshed = new CopyOnWriteArrayList<>();
    /** Shared by the harness's engines, as one instance's are. */
    final EngineStats stats = new EngineStats();
    private final String url;
    private final JdbcTransactions jdbc;
    private final javax.sql.DataSource dataSource;
    private final Map<String, String> deployment;
    private final Settings settings;
    private final Map<String, Projection> projections;

    /**
     * When set, the recording listener throws what it makes after recording each outcome, as an application's
     * {@code RefreshListener} that fails (a metrics backend down, a full executor) would.
     */
    volatile java.util.function.Supplier<? extends RuntimeException> listenerThrows;

    /** The application's tenant scope that engines and rebuild steps enter; read at each entry, so tests swap it. */
    volatile TenantScope tenantScope = TenantScope.NONE;

    /** Runs once, at the start of the next transaction (something another thread does meanwhile). */
    volatile Runnable beforeNextTransaction;

    /** Transactions still to refuse, as an exhausted pool would: no connection in time. */
    final java.util.concurrent.atomic.AtomicInteger refuseTransactions = new java.util.concurrent.atomic.AtomicInteger();

    final Transactions transactions = new Transactions() {
        @Override
        public <T> T inNewTransaction(Duration timeout, Work<T> work) throws Exception {
            if (refuseTransactions.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new java.sql.SQLTransientConnectionException("no connection within the blocking timeout");
            }
            Runnable first = beforeNextTransaction;
            if (first != null) {
                beforeNextTransaction = null;
                first.run();
            }
            Transaction outer = transaction.get();
            transaction.set(new Transaction(timeout, clock.instant()));
            try {
                return jdbc.inNewTransaction(timeout, connection -> work.run(recording(connection)));
            } finally {
                transaction.set(outer);
            }
        }
    };

    /** A transaction as it began: its timeout, and the engine's clock at its start. */
    record Transaction(Duration timeout, Instant began) {
    }

    /** The transaction running on this thread (for a projection's refresh: its own), or {@code null}. */
    final ThreadLocal<Transaction> transaction = new ThreadLocal<>();

    /** The SQL of every statement the harness's transactions prepared, in order; tests clear it. */
    final List<String> statements = new CopyOnWriteArrayList<>();

    private Connection recording(Connection connection) {
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("prepare") && args != null && args[0] instanceof String sql) {
                        statements.add(sql);
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    EngineHarness(String database, Map<String, String> settings, Projection... projections) throws Exception {
        this.url = LiquibaseSchema.freshH2(database);
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL(url);
        dataSource.setUser("sa");
        this.jdbc = new JdbcTransactions(dataSource);
        this.dataSource = dataSource;
        this.deployment = Map.copyOf(settings);
        this.projections = new java.util.HashMap<>();
        for (Projection projection : projections) {
            this.projections.put(projection.name(), projection);
        }
        this.settings = settings(settings);
    }

    Settings settings() {
        return settings;
    }

    RefreshEngine newEngine() {
        return built(engine(settings).withoutRebuildSteps().build()).refresh();
    }

    /** An engine whose drainers also step rebuild runs, {@code pageSize} ids a step. */
    RefreshEngine newEngineWithRebuilds(int pageSize) {
        Map<String, String> withPageSize = new java.util.HashMap<>(deployment);
        withPageSize.put(Settings.REBUILD_PAGE_SIZE, Integer.toString(pageSize));
        return built(engine(settings(withPageSize)).build()).refresh();
    }

    /** The engine built last, with all its parts (its rebuild stepper, say). */
    dev.projections.engine.Engine lastEngine() {
        return engines.get(engines.size() - 1);
    }

    /** The harness's engines, one per instance it plays. */
    private final List<dev.projections.engine.Engine> engines = new CopyOnWriteArrayList<>();

    private dev.projections.engine.Engine built(dev.projections.engine.Engine engine) {
        engines.add(engine);
        return engine;
    }

    /** One more instance on the harness's database, assembled as the server's is, with a hand-off of its own. */
    private dev.projections.engine.EngineBuilder engine(Settings settings) {
        return dev.projections.engine.Engine.builder()
                .dataSource(dataSource)
                .store(store)
                .container(dev.projections.engine.PlainContainer.on(dataSource, Runnable::run) // tests call drain()
                        .transactions(transactions)
                        .clock(clock)
                        .tenantScope(tenant -> tenantScope.enter(tenant)))
                .settings(settings)
                .projections(catalog())
                .handoff(new Handoff(1000, 1))
                .observers(dev.projections.engine.Observers.NONE.listener(this::record))
                .stats(stats);
    }

    /** As the server reads them: global settings, then each projection's own (projection.<name>.<key>). */
    private Settings settings(Map<String, String> settings) {
        java.util.Properties deployment = new java.util.Properties();
        deployment.putAll(settings);
        dev.projections.config.SettingSource source =
                dev.projections.config.SettingSource.standard(System.getProperties(), System.getenv(), deployment);
        return dev.projections.config.ProjectionSettings.resolve(Settings.load(source), source, projections.values());
    }

    /** Starts a rebuild run of {@code projection} (no tenant); the drainers step it. */
    String startRebuild(String projection) throws Exception {
        return startRebuild(projection, "");
    }

    /**
     * Starts a rebuild run of {@code projection} in {@code tenant}; the drainers step it inside the tenant's scope.
     * Once it committed, every engine of the harness hears that a run exists, as the operations tell theirs.
     */
    String startRebuild(String projection, String tenant) throws Exception {
        String runId = transactions.inNewTransaction(Duration.ofSeconds(5), connection ->
                store.rebuildRuns().start(connection, projection, tenant, clock.instant()));
        engines.stream().map(dev.projections.engine.Engine::rebuilds).filter(java.util.Objects::nonNull)
                .forEach(RebuildStepper::runsMayExist);
        return runId;
    }

    /** Starts a verification of {@code projection} (no tenant, every id); the drainers step it as a rebuild. */
    String startVerification(String projection) throws Exception {
        String runId = transactions.inNewTransaction(Duration.ofSeconds(5), connection ->
                store.rebuildRuns().start(connection, dev.projections.store.RebuildRun.VERIFY, projection, "",
                        dev.projections.RebuildScope.everything(), java.util.List.of(), "test", clock.instant()));
        engines.stream().map(dev.projections.engine.Engine::rebuilds).filter(java.util.Objects::nonNull)
                .forEach(RebuildStepper::runsMayExist);
        return runId;
    }

    /** A run as the console and the API read it. */
    dev.projections.RebuildProgress progress(String runId) throws Exception {
        return transactions.inNewTransaction(Duration.ofSeconds(5), connection ->
                store.rebuildHistory().progress(connection, runId, clock.instant())).orElseThrow();
    }

    private void record(MarkKey key, RefreshOutcome outcome, Duration took) {
        refreshed.add(new Refreshed(key, outcome));
        java.util.function.Supplier<? extends RuntimeException> failure = listenerThrows;
        if (failure != null) {
            throw failure.get();
        }
    }

    ProjectionCatalog catalog() {
        return new ProjectionCatalog() {
            @Override
            public Projection byName(String name) {
                return projections.get(name);
            }

            @Override
            public Set<String> names() {
                return projections.keySet();
            }

            @Override
            public Set<String> claimable() {
                return projections.keySet();
            }
        };
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    /** Marks as a committed business change would (the upsert rule), at the engine's time. */
    MarkKey mark(String projection, String id) throws Exception {
        return mark(projection, "", id);
    }

    MarkKey mark(String projection, String tenant, String id) throws Exception {
        MarkKey key = new MarkKey(projection, tenant, id);
        transactions.inNewTransaction(Duration.ofSeconds(5), connection -> {
            store.queue().upsert(connection, List.of(key), PendingQueue.LIVE, clock.instant());
            return null;
        });
        return key;
    }

    /** The key's mark, or {@code null} when it has none. */
    Row row(MarkKey key) throws SQLException {
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement("""
                SELECT claim_token, attempts, available_at, priority, last_error, mark_count, claimed_until
                  FROM projection_pending
                 WHERE projection = ? AND tenant_id = ? AND entity_id = ?""")) {
            select.setString(1, key.projection());
            select.setString(2, key.tenantId());
            select.setString(3, key.entityId());
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return null;
                }
                return new Row(rows.getString(1), rows.getInt(2), rows.getObject(3, OffsetDateTime.class).toInstant(),
                        rows.getInt(4), rows.getString(5), rows.getLong(6),
                        rows.getObject(7) == null ? null : rows.getObject(7, OffsetDateTime.class).toInstant());
            }
        }
    }

    long pending() throws SQLException {
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(
                "SELECT COUNT(*) FROM projection_pending"); ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The suspended projections of {@code projection_control}, with their reasons. */
    Map<String, dev.projections.store.Suspension> suspensions() throws Exception {
        return transactions.inNewTransaction(Duration.ofSeconds(5),
                connection -> store.control().suspensions(connection));
    }

    /** Suspends {@code projection} by hand, as {@code Projections.suspend} does. */
    void suspend(String projection, String reason) throws Exception {
        transactions.inNewTransaction(Duration.ofSeconds(5), connection -> {
            store.control().suspend(connection, projection, reason, "operator", clock.instant());
            return null;
        });
    }

    List<RefreshOutcome> outcomes(MarkKey key) {
        return refreshed.stream().filter(r -> r.key().equals(key)).map(Refreshed::outcome).toList();
    }
}
