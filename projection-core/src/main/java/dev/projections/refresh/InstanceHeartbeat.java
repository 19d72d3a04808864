package dev.projections.refresh;

import dev.projections.ClockSkew;
import dev.projections.store.InstanceTable;
import dev.projections.store.NodeReport;
import dev.projections.store.NodeTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Run by every sweep: records in {@code projection_instance} that this instance deploys its projections (so the
 * console can tell marks nobody will refresh), compares the engine's clock with the database's, and reports what the
 * instance is doing in {@code projection_node} (the console's instances page). Leases and due times are compared
 * across instances, so their clocks must agree: a difference beyond {@link ClockSkewRule}'s limit (half the lease
 * margin) is logged as a warning at every sweep, and the measurement goes to {@link EngineStats} for health and
 * metrics.
 */
public final class InstanceHeartbeat {

    private static final Logger LOG = Logger.getLogger(InstanceHeartbeat.class.getName());

    /** What health and the log say, before the projections' names, when no instance processes their marks (D54). */
    public static final String NO_PROCESSING_NODE = "no live instance that processes marks (projection.processing=true, "
            + "reported within 3 x projection.sweep-interval) deploys ";

    /** The problem health names for {@code unprocessed}: their marks are written and nothing refreshes them. */
    public static String noProcessingNode(Set<String> unprocessed) {
        return NO_PROCESSING_NODE + String.join(", ", new TreeSet<>(unprocessed))
                + ": their marks are written and nothing refreshes them";
    }

    /** What the instance is doing when its sweep reports. */
    public record Activity(int workers, int drainersBusy, int claimsHeld, long refreshesPerMinute) {
    }

    private final InstanceTable instances;
    private final NodeTable nodes;
    private final Supplier<Activity> activity;
    /** When this instance's engine began to report (its first heartbeat object): the instances page's "started". */
    private final Instant startedAt;
    private final Transactions transactions;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final String instanceId;
    private final ClockSkewRule skewRule;
    private final EngineStats stats;
    private final boolean processing;
    private final Duration goneAfter;

    public InstanceHeartbeat(InstanceTable instances, NodeTable nodes, Supplier<Activity> activity,
                             Transactions transactions, Clock clock, ProjectionCatalog catalog, String instanceId,
                             Duration leaseTime, EngineStats stats, boolean processing, Duration goneAfter) {
        this.instances = instances;
        this.nodes = nodes;
        this.activity = activity;
        this.startedAt = clock.instant();
        this.transactions = transactions;
        this.clock = clock;
        this.catalog = catalog;
        this.instanceId = instanceId;
        this.skewRule = new ClockSkewRule(leaseTime);
        this.stats = stats;
        this.processing = processing;
        this.goneAfter = goneAfter;
    }

    /** Returns the clock difference (engine minus database) against its limit. */
    public ClockSkew beat() {
        try {
            ClockSkew skew = transactions.inNewTransaction(Duration.ofSeconds(30), connection -> {
                // the database's time as the transaction's first statement, taken against the middle of our
                // readings around it: neither the upsert's time (MariaDB reads the statement's time, PostgreSQL the
                // transaction's start) nor the query's round trip counts as skew, and the limit is only 100 ms
                // for the shortest lease
                Instant before = clock.instant();
                Instant database = instances.databaseTime(connection);
                Instant after = clock.instant();
                instances.heartbeat(connection, instanceId, catalog.names(), before);
                Instant ours = before.plus(Duration.between(before, after).dividedBy(2));
                return skewRule.measured(Duration.between(database, ours));
            });
            stats.clockMeasured(skew);
            if (skew.exceeded()) {
                LOG.warning("PRJ105: " + skewRule.warning(skew));
            }
            return skew;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new DatabaseTroubleException("heartbeat failed: " + e.getMessage(), e);
        }
    }

    /**
     * Reports what this instance is doing in {@code projection_node}, with the clock difference the last
     * {@link #beat} measured. The sweep calls it after it started its drainers: a failure here holds up no refresh.
     */
    public void report() {
        Activity now = activity.get();
        Database.call("reporting this instance", () -> transactions.inNewTransaction(Duration.ofSeconds(10),
                connection -> {
                    nodes.report(connection, new NodeReport(instanceId, startedAt, clock.instant(), now.workers(),
                            now.drainersBusy(), now.claimsHeld(), now.refreshesPerMinute(), lastSkew(), processing));
                    return null;
                }));
    }

    /** The unprocessed projections last logged; at the start, none. */
    private volatile Set<String> lastWarned = Set.of();

    /**
     * Counts, for each of this instance's projections, the instances that process marks and deploy it, live by their
     * heartbeat within {@code goneAfter} (this one included once it has beaten), for health and the meters — a
     * projection none deploys has its marks written and nobody refreshes them (docs/design.md D54), which the sweep's
     * count ({@code warn}) logs when it changes — and the live web nodes that deploy one of them, for the wake-up look. The sweep
     * calls it after {@link #report}; the wake-up look between sweeps.
     */
    public ProcessingCount countProcessing(boolean warn) {
        ProcessingCount count = ProcessingCount.of(Database.call("counting the processing instances",
                () -> transactions.inNewTransaction(Duration.ofSeconds(10), connection -> nodes.liveDeployments(
                        connection, clock.instant().minus(goneAfter)))), catalog.names(), instanceId);
        stats.processingCounted(count);
        if (warn && !count.unprocessed().equals(lastWarned)) {
            // once per change, not at every sweep: health and the gauge say it for as long as it lasts
            if (count.unprocessed().isEmpty()) {
                LOG.info("projection engine: every projection of this instance is processed by a live instance again");
            } else {
                LOG.warning("PRJ106: projection engine: " + noProcessingNode(count.unprocessed()));
            }
            lastWarned = count.unprocessed();
        }
        return count;
    }

    private Duration lastSkew() {
        ClockSkew measured = stats.clockSkew();
        return measured == null ? Duration.ZERO : measured.skew();
    }

    public String instanceId() {
        return instanceId;
    }
}
