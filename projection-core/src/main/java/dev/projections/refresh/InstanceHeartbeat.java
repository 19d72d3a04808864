package dev.projections.refresh;

import dev.projections.store.InstanceTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Logger;

/**
 * Run by every sweep: records in {@code projection_instance} that this instance deploys its projections (so the
 * console can tell marks nobody will refresh), and compares the engine's clock with the database's. Leases and
 * due times are compared across instances, so their clocks must agree; a difference over a tenth of the lease
 * is reported.
 */
public final class InstanceHeartbeat {

    private static final Logger LOG = Logger.getLogger(InstanceHeartbeat.class.getName());

    private final InstanceTable instances;
    private final Transactions transactions;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final String instanceId;
    private final Duration tolerance;

    public InstanceHeartbeat(InstanceTable instances, Transactions transactions, Clock clock, ProjectionCatalog catalog,
                             String instanceId, Duration leaseTime) {
        this.instances = instances;
        this.transactions = transactions;
        this.clock = clock;
        this.catalog = catalog;
        this.instanceId = instanceId;
        this.tolerance = leaseTime.dividedBy(10);
    }

    /** Returns the clock difference (engine minus database). */
    public Duration beat() {
        try {
            return transactions.inNewTransaction(Duration.ofSeconds(30), connection -> {
                Instant now = clock.instant();
                instances.heartbeat(connection, instanceId, catalog.names(), now);
                Duration skew = Duration.between(instances.databaseTime(connection), now);
                if (skew.abs().compareTo(tolerance) > 0) {
                    LOG.warning("projection engine: this instance's clock differs from the database's by "
                            + skew.toMillis() + " ms, more than a tenth of projection.lease-time ("
                            + tolerance.toMillis() + " ms); synchronise the clocks (NTP) of all instances");
                }
                return skew;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new DatabaseTroubleException("heartbeat failed: " + e.getMessage(), e);
        }
    }

    public String instanceId() {
        return instanceId;
    }
}
