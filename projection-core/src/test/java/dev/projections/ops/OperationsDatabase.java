package dev.projections.ops;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.inspect.PendingCounts;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;

/** An H2 database with the product's tables, the parts the operations take, and counters of what they announced. */
final class OperationsDatabase {

    /** Still, so a due time reads back as the instant an action gave it. */
    final AdjustableClock clock = new AdjustableClock(java.time.Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"),
            java.time.ZoneOffset.UTC));
    final Tables store = Tables.forProduct("H2");
    final AtomicInteger madeDue = new AtomicInteger();
    final AtomicInteger pausesChanged = new AtomicInteger();
    final AtomicInteger sqlCalls = new AtomicInteger();
    final dev.projections.refresh.EngineStats stats = new dev.projections.refresh.EngineStats();
    private final String url;
    private final Sql sql;
    private final JdbcDataSource dataSource = new JdbcDataSource();

    OperationsDatabase(String name) throws Exception {
        url = LiquibaseSchema.freshH2(name);
        dataSource.setURL(url);
        dataSource.setUser("sa");
        Sql real = Sql.on(dataSource, store);
        sql = new Sql() {
            @Override
            public <T> T call(String what, Work<T> work) {
                sqlCalls.incrementAndGet();
                return real.call(what, work);
            }
        };
    }

    /** "orders" lists its ids (so it can be rebuilt), "customers" does not. */
    static final Projection ORDERS = new Projection() {
        @Override
        public String name() {
            return "orders";
        }

        @Override
        public void refresh(String id) {
        }

        @Override
        public List<String> ids(String after, int limit) {
            return List.of();
        }
    };

    static final Projection CUSTOMERS = new Projection() {
        @Override
        public String name() {
            return "customers";
        }

        @Override
        public void refresh(String id) {
        }
    };

    /** Projections "orders" and "customers" are deployed. */
    ProjectionCatalog catalog() {
        return new ProjectionCatalog() {
            @Override
            public Projection byName(String name) {
                return switch (name) {
                    case "orders" -> ORDERS;
                    case "customers" -> CUSTOMERS;
                    default -> throw new IllegalArgumentException(name);
                };
            }

            @Override
            public Set<String> names() {
                return Set.of("orders", "customers");
            }

            @Override
            public Set<String> claimable() {
                return names();
            }
        };
    }

    MarkOperations marks() {
        return new MarkOperations(sql, store.actions(), new PendingCounts(store.dialect()), clock, catalog(),
                madeDue::incrementAndGet, java.time.Duration.ofMinutes(3));
    }

    /** Waits that check this database every few ms; a refreshNow's drainer start counted in {@code drainsAsked}. */
    CatchUp catchUp(dev.projections.config.Settings settings, List<Set<String>> drainsAsked) {
        return new CatchUp(dev.projections.engine.Foundation.idleWaits(settings, sql, store), marks(), catalog(), settings,
                drainsAsked::add);
    }

    PauseOperations pauses() {
        return pauses(dev.projections.lifecycle.LifecycleListener.NONE);
    }

    PauseOperations pauses(dev.projections.lifecycle.LifecycleListener events) {
        return new PauseOperations(sql, store.control(), clock, catalog(), pausesChanged::incrementAndGet, madeDue::incrementAndGet,
                events);
    }

    /** Rebuilds with {@code tenants} as the TenantDirectory ({@code null}: none), {@code started} as the transaction's. */
    RebuildOperations rebuilds(List<String> tenants, Set<String> started) {
        // a real stepper for cancels (committed in transactions of their own); its drainers' steps are not run here
        dev.projections.refresh.RebuildStepper stepper = new dev.projections.refresh.RebuildStepper(store,
                new dev.projections.refresh.JdbcTransactions(dataSource), clock, catalog(),
                dev.projections.TenantScope.NONE, projection -> 100, java.time.Duration.ofMinutes(2));
        return new RebuildOperations(sql, store, stepper, clock, catalog(),
                dev.projections.TenantScope.NONE, tenants == null ? null : () -> tenants, () -> started,
                madeDue::incrementAndGet, new dev.projections.refresh.WakeUpSignals(
                        new dev.projections.store.CommitSignals(store.dialect(), null), "operations-test", true, true,
                        new dev.projections.refresh.EngineStats()));
    }

    private dev.projections.engine.Engine engine;

    /**
     * The operations with their audit rows, as an engine on this database builds them for every face; the
     * drainers they start are counted in {@link #madeDue} and never run (the tests look at the tables the actions
     * leave), and marks of a projection gone 3 min (three sweep intervals of one minute) are orphaned.
     */
    Operations operations() {
        if (engine == null) {
            engine = dev.projections.engine.Engine.builder()
                    .dataSource(dataSource)
                    .store(store)
                    .container(dev.projections.engine.PlainContainer.on(dataSource, drainer -> madeDue.incrementAndGet()).clock(clock))
                    .settings(dev.projections.config.Settings.load(dev.projections.config.SettingSource.of(
                            java.util.Map.of(dev.projections.config.Settings.SWEEP_INTERVAL, "1m"))))
                    .projections(catalog())
                    .instanceId("operations-test")
                    .build();
        }
        return engine.operations();
    }

    /** The audit rows, oldest first: user, action, projection, tenant, entity id, detail. */
    List<List<String>> audit() throws SQLException {
        List<List<String>> rows = new java.util.ArrayList<>();
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(
                "SELECT user_name, action, projection, tenant_id, entity_id, detail FROM projection_audit ORDER BY id");
             ResultSet result = select.executeQuery()) {
            while (result.next()) {
                List<String> row = new java.util.ArrayList<>();
                for (int i = 1; i <= 6; i++) {
                    row.add(result.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** The overview and health on this database; {@code wallClock} is where the sweep's times are read against. */
    Overview overview(java.time.Clock wallClock) {
        return overview(dataSource, wallClock);
    }

    Overview overview(javax.sql.DataSource on, java.time.Clock wallClock) {
        return new Overview(sql, on, store, new PendingCounts(store.dialect()), clock, wallClock, catalog(), stats,
                dev.projections.config.Settings.defaults());
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    MarkKey mark(String projection, String id) throws SQLException {
        MarkKey key = new MarkKey(projection, "", id);
        try (Connection connection = connect()) {
            store.queue().upsert(connection, List.of(key), 0, clock.instant());
        }
        return key;
    }

    /** {@code key} as a refresh that failed {@code attempts} times left it: due again only later, or parked. */
    void fail(MarkKey key, int attempts, String error, boolean parked) throws SQLException {
        Instant due = parked ? PendingQueue.PARKED_UNTIL : clock.instant().plusSeconds(3600);
        try (Connection connection = connect();
             PreparedStatement update = connection.prepareStatement("UPDATE projection_pending SET attempts = ?, "
                     + "last_error = ?, available_at = ?" + (parked ? ", parked_at = ?" : "")
                     + " WHERE projection = ? AND tenant_id = ? AND entity_id = ?")) {
            int i = 1;
            update.setInt(i++, attempts);
            update.setString(i++, error);
            update.setTimestamp(i++, Timestamp.from(due));
            if (parked) {
                update.setTimestamp(i++, Timestamp.from(clock.instant()));
            }
            update.setString(i++, key.projection());
            update.setString(i++, key.tenantId());
            update.setString(i, key.entityId());
            update.executeUpdate();
        }
    }

    /** The mark's attempts and due time, or {@code null} when it is gone. */
    Object[] row(MarkKey key) throws SQLException {
        try (Connection connection = connect();
             PreparedStatement select = connection.prepareStatement("SELECT attempts, available_at FROM "
                     + "projection_pending WHERE projection = ? AND tenant_id = ? AND entity_id = ?")) {
            select.setString(1, key.projection());
            select.setString(2, key.tenantId());
            select.setString(3, key.entityId());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? new Object[] {rows.getInt(1), rows.getTimestamp(2).toInstant()} : null;
            }
        }
    }
}
