package dev.projections.refresh;

import dev.projections.store.InstanceTable;
import dev.projections.store.NodeReport;
import dev.projections.store.NodeTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Run by every sweep: records in {@code projection_instance} that this instance deploys its projections (so the
 * console can tell marks nobody will refresh), compares the engine's clock with the database's, and reports what the
 * instance is doing in {@code projection_node} (the console's instances page). Leases and due times are compared
 * across instances, so their clocks must agree; a difference over a tenth of the lease is reported.
 */
public final class InstanceHeartbeat {

    private static final Logger LOG = Logger.getLogger(InstanceHeartbeat.class.getName());

    /** What the instance is doing when its sweep reports. */
    public record Activity(int workers, int drainersBusy, int claimsHeld, long refreshesPerMinute) {
    }

    private final InstanceTable instances;
    private final NodeTable nodes;
    private final Supplier<Activity> activity;
    /** When this instance's engine began to report (its first heartbeat object): the instances page's "started". */
    private final Instant startedAt;
    private volatile Duration lastSkew = Duration.ZERO;
    private final Transactions transactions;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final String instanceId;
    private final Duration tolerance;

    public InstanceHeartbeat(InstanceTable instances, NodeTable nodes, Supplier<Activity> activity,
                             Transactions transactions, Clock clock, ProjectionCatalog catalog, String instanceId,
                             Duration leaseTime) {
        this.instances = instances;
        this.nodes = nodes;
        this.activity = activity;
        this.startedAt = clock.instant();
        this.transactions = transactions;
        this.clock = clock;
        this.catalog = catalog;
        this.instanceId = instanceId;
        this.tolerance = leaseTime.dividedBy(10);
    }

    /** Returns the clock difference (engine minus database). */
    public Duration beat() {
        try {
            Duration skew = transactions.inNewTransaction(Duration.ofSeconds(30), connection -> {
                Instant at = clock.instant();
                instances.heartbeat(connection, instanceId, catalog.names(), at);
                return Duration.between(instances.databaseTime(connection), at);
            });
            lastSkew = skew;
            if (skew.abs().compareTo(tolerance) > 0) {
                LOG.warning("projection engine: this instance's clock differs from the database's by "
                        + skew.toMillis() + " ms, more than a tenth of projection.lease-time ("
                        + tolerance.toMillis() + " ms); synchronise the clocks (NTP) of all instances");
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
                            now.drainersBusy(), now.claimsHeld(), now.refreshesPerMinute(), lastSkew));
                    return null;
                }));
    }

    public String instanceId() {
        return instanceId;
    }
}
