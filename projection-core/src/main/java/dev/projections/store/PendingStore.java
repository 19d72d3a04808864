package dev.projections.store;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The product's tables on one database, one object per table and role (docs/design.md, "The store"): the pending
 * queue as the engine uses it, the operator's actions on pending marks, the control table and the instance table,
 * all over one {@link Dialect}. Chosen once per deployment; callers keep the part they use. Rebuild runs are
 * {@link RebuildStore}; what the console and the gauges read is in {@code dev.projections.inspect}.
 */
public final class PendingStore {

    private final Dialect dialect;
    private final PendingQueue queue;
    private final HeldClaims claims;
    private final MarkActions actions;
    private final ControlTable control;
    private final InstanceTable instances;
    private final NodeTable nodes;
    private final TrendTable trends;

    /** Work on a connection of the projection datasource. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    private PendingStore(Dialect dialect, PendingQueue queue) {
        this.dialect = dialect;
        this.queue = queue;
        this.claims = new HeldClaims(queue);
        this.actions = new MarkActions(dialect);
        this.control = new ControlTable(dialect);
        this.instances = new InstanceTable(dialect);
        this.nodes = new NodeTable(dialect);
        this.trends = new TrendTable(dialect);
    }

    /** The store for the database behind {@code dataSource}, chosen from its JDBC metadata. */
    public static PendingStore forDatabase(DataSource dataSource) {
        return forDatabase(dataSource, null);
    }

    /** As {@link #forDatabase(DataSource)}, for the server {@code holder}, whose name each of its claims carries. */
    public static PendingStore forDatabase(DataSource dataSource, String holder) {
        String product;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
            PendingStore store = forProduct(product, holder);
            SnapshotChecks.present(connection); // at deployment: a MariaDB that cannot go without the check fails it
            return store;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the projection datasource to detect its database", e);
        }
    }

    /** The store for a JDBC driver's database product name: PostgreSQL, H2, MariaDB or MySQL. */
    public static PendingStore forProduct(String databaseProductName) {
        return forProduct(databaseProductName, null);
    }

    /** As {@link #forProduct(String)}, for the server {@code holder}, whose name each of its claims carries. */
    public static PendingStore forProduct(String databaseProductName, String holder) {
        Dialect dialect = Dialect.of(databaseProductName);
        return new PendingStore(dialect, dialect.queue(holder));
    }

    /**
     * Prepares a transaction of the engine on {@code connection}, before its first statement: READ COMMITTED on MariaDB
     * and MySQL ({@link Dialect#beginEngineTransaction}). Its statements that read before they lock go without
     * MariaDB's snapshot check by themselves ({@link SnapshotChecks}).
     */
    public void beginEngineTransaction(Connection connection) throws SQLException {
        dialect.beginEngineTransaction(connection);
    }

    /**
     * Runs {@code work} on a connection whose transaction the caller owns (an application's, a console action's in
     * its container transaction), so at the datasource's isolation: on MariaDB every statement of it goes without the
     * snapshot check, which would otherwise fail a REPEATABLE READ transaction that read before the product's
     * statements wrote a row the engine changed meanwhile ({@link SnapshotChecks}); elsewhere as it is.
     */
    public <T> T outsideSnapshotChecks(Connection connection, SqlWork<T> work) throws SQLException {
        return work.run(dialect.outsideSnapshotChecks(connection));
    }

    /** {@code projection_pending} as the engine uses it: mark, claim, ack, fail, park, release. */
    public PendingQueue queue() {
        return queue;
    }

    /** The claims a drainer holds, given back without an ack: released, abandoned, renewed, given back untried. */
    public HeldClaims claims() {
        return claims;
    }

    /** The operator's actions on pending marks: retry, resume or skip parked ones, purge orphaned ones. */
    public MarkActions actions() {
        return actions;
    }

    /** {@code projection_control}: pauses, suspensions, probe turns. */
    public ControlTable control() {
        return control;
    }

    /** {@code projection_instance}: the heartbeat, and the database's clock. */
    public InstanceTable instances() {
        return instances;
    }

    /** {@code projection_node}: what each instance is doing, as its sweep reports it. */
    public NodeTable nodes() {
        return nodes;
    }

    /** {@code projection_trend}: each projection's minutes, as each instance's sweep samples them. */
    public TrendTable trends() {
        return trends;
    }

    /** The database these tables live on. */
    public Dialect dialect() {
        return dialect;
    }
}
