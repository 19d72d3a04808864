package dev.projections.store;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The one entry to the product's tables on one database (docs/design.md D29, D39): the {@link Dialect} is chosen here,
 * once per deployment, and every table's class is handed out with it — the pending queue and the claims drainers
 * hold, the operator's actions on marks, the control, instance, node and trend tables, and the rebuild runs, their
 * partitions, their marks and their history. Callers keep the part they use. What the console and the gauges read of
 * the queue is in {@code dev.projections.inspect}; the audit table is {@code inspect.AuditLog}.
 */
public final class Tables {

    private final Dialect dialect;
    private final PendingQueue queue;
    private final HeldClaims claims;
    private final MarkActions actions;
    private final ControlTable control;
    private final InstanceTable instances;
    private final NodeTable nodes;
    private final TrendTable trends;
    private final RebuildRuns rebuildRuns;
    private final EndedRuns endedRuns;
    private final RebuildPartitions rebuildPartitions;
    private final RebuildMarks rebuildMarks;
    private final RebuildHistory rebuildHistory;
    private final PendingChecks checks;
    private final ProbeClaims probes;
    private final DriftTable drift;

    /** Work on a connection of the projection datasource. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    private Tables(Dialect dialect, PendingQueue queue) {
        this.dialect = dialect;
        this.queue = queue;
        this.claims = new HeldClaims(queue);
        this.actions = new MarkActions(dialect);
        this.control = new ControlTable(dialect);
        this.instances = new InstanceTable(dialect);
        this.nodes = new NodeTable(dialect);
        this.trends = new TrendTable(dialect);
        this.rebuildPartitions = new RebuildPartitions(dialect);
        this.rebuildMarks = new RebuildMarks(dialect);
        this.rebuildRuns = new RebuildRuns(dialect, rebuildPartitions, rebuildMarks);
        this.endedRuns = new EndedRuns(dialect);
        this.rebuildHistory = new RebuildHistory(dialect, rebuildMarks);
        this.checks = new PendingChecks(dialect, queue.holder);
        this.probes = new ProbeClaims(queue);
        this.drift = new DriftTable(dialect);
    }

    /** The store for the database behind {@code dataSource}, chosen from its JDBC metadata. */
    public static Tables forDatabase(DataSource dataSource) {
        return forDatabase(dataSource, null);
    }

    /** As {@link #forDatabase(DataSource)}, for the server {@code holder}, whose name each of its claims carries. */
    public static Tables forDatabase(DataSource dataSource, String holder) {
        String product;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
            Tables store = forProduct(product, holder);
            SnapshotChecks.present(connection); // at deployment: a MariaDB that cannot go without the check fails it
            return store;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the projection datasource to detect its database", e);
        }
    }

    /** The store for a JDBC driver's database product name: PostgreSQL, H2, MariaDB or MySQL. */
    public static Tables forProduct(String databaseProductName) {
        return forProduct(databaseProductName, null);
    }

    /** The same tables for another server {@code holder} on the same database (the store's tests play several). */
    Tables forHolder(String holder) {
        return new Tables(dialect, dialect.queue(holder));
    }

    /** As {@link #forProduct(String)}, for the server {@code holder}, whose name each of its claims carries. */
    public static Tables forProduct(String databaseProductName, String holder) {
        Dialect dialect = Dialect.of(databaseProductName);
        return new Tables(dialect, dialect.queue(holder));
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
     * What to make of a connection whose transaction the caller owns (an application's, a console action's in its
     * container transaction), so at the datasource's isolation: on MariaDB a view of it whose every statement goes
     * without the snapshot check, which would otherwise fail a REPEATABLE READ transaction that read before the
     * product's statements wrote a row the engine changed meanwhile ({@link SnapshotChecks}); elsewhere the connection
     * as it is. Asked once, by whoever hands such connections out, rather than on each.
     */
    public SqlWork<Connection> outsideSnapshotChecks() {
        return dialect::outsideSnapshotChecks;
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

    /** {@code projection_rebuild}: a rebuild run's life, from its start to its end state. */
    /** Reads of the pending table by key, without a lock: read-your-writes, trace contexts, due and idle checks. */
    public PendingChecks checks() {
        return checks;
    }

    /** The claim of a suspended projection's probe. */
    public ProbeClaims probes() {
        return probes;
    }

    /** {@code projection_rebuild}: a run's life, from its start to its end. */
    public RebuildRuns rebuildRuns() {
        return rebuildRuns;
    }

    /** The runs that ended, as the retention deletes them. */
    public EndedRuns endedRuns() {
        return endedRuns;
    }

    /** {@code projection_rebuild_partition}: a run's id ranges, each leased for a step. */
    public RebuildPartitions rebuildPartitions() {
        return rebuildPartitions;
    }

    /** A run's marks in {@code projection_pending}: counted to finish it, deleted once it is cancelled. */
    public RebuildMarks rebuildMarks() {
        return rebuildMarks;
    }

    /** What an operator reads of rebuild runs: progress, history, partitions. */
    public RebuildHistory rebuildHistory() {
        return rebuildHistory;
    }

    /** {@code projection_drift_sample} and {@code projection_drift}: the drift samples' turns and what was found. */
    public DriftTable drift() {
        return drift;
    }

    /** The database these tables live on. */
    public Dialect dialect() {
        return dialect;
    }
}
