package dev.projections.engine;

import dev.projections.config.Settings;
import dev.projections.freshness.IdleWaits;
import dev.projections.freshness.RefreshWaits;
import dev.projections.inspect.PendingCounts;
import dev.projections.ops.Sql;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.EngineStats;
import dev.projections.refresh.LeaseMargin;
import dev.projections.refresh.WakeUpSignals;
import dev.projections.store.CommitSignals;
import dev.projections.store.Tables;
import dev.projections.trend.RefreshMinutes;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadFactory;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * What an instance has from its deployment's start, before its {@link Engine} is built at first use: the store on the
 * engine's datasource, the clock, the counters and the refreshes per minute the gauges and the console read, and the
 * read-your-writes waits (docs/contract.md §14) — those because a committing thread captures its keys before the
 * engine's first use, with the container's check threads as the deployment made them. The engine is built on it
 * ({@link EngineBuilder#foundation}), so the parts are one instance's, never made twice.
 */
public final class Foundation {

    private final Settings settings;
    private final DataSource dataSource;
    private final String instanceId;
    private final Tables store;
    private final PendingCounts counts;
    private final AdjustableClock clock = new AdjustableClock();
    private final EngineStats stats = new EngineStats();
    private final RefreshMinutes refreshMinutes = new RefreshMinutes(clock);
    private final RefreshWaits waits;
    private final WakeUpSignals signals;

    /**
     * The parts on {@code dataSource} for instance {@code instanceId}; the waits' checks of the queue each run on one
     * of {@code checkThreads}, and {@code inTransaction} says whether the calling thread is in a transaction (a wait
     * inside one would wait for its own commit).
     */
    public Foundation(Settings settings, DataSource dataSource, String instanceId, BooleanSupplier inTransaction,
                      ThreadFactory checkThreads) {
        this.settings = settings;
        this.dataSource = dataSource;
        this.instanceId = instanceId;
        this.store = Tables.forDatabase(dataSource, instanceId);
        this.counts = new PendingCounts(store.dialect());
        this.signals = signals(settings, store, instanceId, stats);
        Sql sql = Sql.on(dataSource, store);
        // the lease margin is the global lease's: the clocks a check compares are kept within the shortest one's
        this.waits = new RefreshWaits(clock, settings.awaits(), LeaseMargin.of(settings.leaseTime()),
                (keys, committedAt, margin) -> sql.call("check a read-your-writes wait",
                        connection -> store.checks().stillPending(connection, keys, committedAt, margin)),
                inTransaction, checkThreads);
        if (!settings.enabled()) {
            waits.stop(); // a disabled engine refreshes nothing: no wait waits
        }
    }

    /** An instance's name: {@code nodeName} (unique per instance of a cluster or domain) if set, else the host's. */
    public static String instanceName(String nodeName) {
        if (nodeName != null && !nodeName.isBlank()) {
            return nodeName;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }

    /** What instance {@code instanceId} signals to the others on {@code store}'s database (docs/design.md D55). */
    static WakeUpSignals signals(Settings settings, Tables store, String instanceId, EngineStats stats) {
        return new WakeUpSignals(new CommitSignals(store.dialect(), settings.tableSchema()), instanceId,
                settings.processing(), settings.listenDatasource() != null, stats);
    }

    /** What this instance signals to the others in its commits, and hears of theirs. */
    public WakeUpSignals signals() {
        return signals;
    }

    /** The test support's waits for projections with no mark left. */
    public static IdleWaits idleWaits(Settings settings, Sql sql, Tables store) {
        return new IdleWaits(settings.awaits().maxTimeout(), projections -> sql.call("check for marks left",
                connection -> {
                    Set<String> left = new TreeSet<>();
                    for (String projection : projections) {
                        if (store.checks().hasMarks(connection, projection)) {
                            left.add(projection);
                        }
                    }
                    return left;
                }));
    }

    /** The global settings, as read at the deployment's start. */
    public Settings settings() {
        return settings;
    }

    /** The engine's datasource, its connections naming the product's tables in their schema. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** This instance's name in {@code projection_instance}, {@code projection_node} and beside its claims. */
    public String instanceId() {
        return instanceId;
    }

    public Tables store() {
        return store;
    }

    /** The counts of the pending table that the gauges read. */
    public PendingCounts counts() {
        return counts;
    }

    /** The engine's clock; tests move it forward to expire leases and backoffs without sleeping. */
    public AdjustableClock clock() {
        return clock;
    }

    public EngineStats stats() {
        return stats;
    }

    /** This instance's refreshes per projection and minute, which the sweep writes as trends. */
    public RefreshMinutes refreshMinutes() {
        return refreshMinutes;
    }

    /** Read-your-writes waits: the captures of committing threads and the threads waiting. */
    public RefreshWaits waits() {
        return waits;
    }

    /** Stops the waits (they answer no more); the engine's own stop is its own. */
    public void stop() {
        waits.stop();
    }
}
