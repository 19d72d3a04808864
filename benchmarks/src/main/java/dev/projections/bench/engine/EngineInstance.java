package dev.projections.bench.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.projections.Projection;
import dev.projections.RefreshListener;
import dev.projections.TenantScope;
import dev.projections.bench.db.BenchDatabase;
import dev.projections.bench.db.JdbcTransactions;
import dev.projections.bench.db.StatementCounting;
import dev.projections.config.Settings;
import dev.projections.refresh.EngineStats;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.RebuildStepper;
import dev.projections.refresh.RefreshEngine;
import dev.projections.store.PendingStore;
import dev.projections.store.RebuildStore;
import java.time.Clock;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One "instance" of the product as the EE layer assembles it: an engine with its own connection pool, hand-off and
 * settings, deploying one projection. Two of these on the same database are two servers sharing the pending table.
 */
public final class EngineInstance implements AutoCloseable {

    /** The size the EE layer gives its hand-off. */
    private static final int HANDOFF_CAPACITY = 50_000;

    private final HikariDataSource pool;
    private final JdbcTransactions transactions;
    private final Settings settings;
    private final Handoff handoff;
    private final RefreshEngine engine;
    private final RebuildStepper rebuilds;

    private EngineInstance(HikariDataSource pool, JdbcTransactions transactions, Settings settings, Handoff handoff,
                           RefreshEngine engine, RebuildStepper rebuilds) {
        this.pool = pool;
        this.transactions = transactions;
        this.settings = settings;
        this.handoff = handoff;
        this.engine = engine;
        this.rebuilds = rebuilds;
    }

    /**
     * @param workers    {@code projection.workers}: the hand-off's bound on drainers
     * @param withRebuild whether drainers step rebuild runs (the EE layer always gives them a stepper, with pages of
     *                    {@code projection.rebuild-page-size} ids)
     * @param statements counts the engine's statement executions; {@code null} for none
     */
    public static EngineInstance start(BenchDatabase database, PendingStore store, Clock clock, Projection projection,
                                       int workers, RefreshListener listener, boolean withRebuild,
                                       LongAdder statements) {
        Properties deployment = new Properties();
        deployment.setProperty(Settings.WORKERS, Integer.toString(workers));
        Settings settings = Settings.load(deployment);
        // a connection per drainer, and one for the checks of whoever drives the instance
        HikariDataSource pool = database.pool("engine", settings.workers() + 2);
        JdbcTransactions transactions = new JdbcTransactions(
                statements == null ? pool : StatementCounting.wrap(pool, statements));
        ProjectionCatalog catalog = new SingleProjection(projection);
        RebuildStepper rebuilds = withRebuild
                ? new RebuildStepper(new RebuildStore(), store.queue(), transactions, clock, catalog, TenantScope.NONE,
                        settings.rebuildPageSize(), settings.leaseTime())
                : null;
        Handoff handoff = new Handoff(HANDOFF_CAPACITY, settings.workers());
        RefreshEngine engine = new RefreshEngine(store, transactions, clock, settings, handoff, catalog,
                TenantScope.NONE, listener, new EngineStats(), rebuilds);
        return new EngineInstance(pool, transactions, settings, handoff, engine, rebuilds);
    }

    /**
     * One drainer thread's loop step: a drainer turn, and when it found nothing while work is left for the instance
     * (marks held by another drainer's claim, a rebuild step in progress elsewhere) a pause of a millisecond, as a
     * sweep would come back later; false once nothing is left.
     */
    public ParallelLoop.Step drainerStep(BooleanSupplier workLeft) {
        return () -> {
            if (engine.drain()) {
                return true;
            }
            if (!workLeft.getAsBoolean()) {
                return false;
            }
            LockSupport.parkNanos(1_000_000);
            return true;
        };
    }

    /** Drains with {@code threads} threads until nothing this instance can claim is due; nanoseconds. */
    public long drainWith(int threads) throws Exception {
        return ParallelLoop.run(threads, "drainer", drainerStep(engine::hasDueWork));
    }

    public RefreshEngine engine() {
        return engine;
    }

    public Handoff handoff() {
        return handoff;
    }

    public RebuildStepper rebuilds() {
        return rebuilds;
    }

    public JdbcTransactions transactions() {
        return transactions;
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public void close() {
        try {
            engine.stop();
        } finally {
            pool.close();
        }
    }

    private record SingleProjection(Projection projection) implements ProjectionCatalog {
        @Override
        public Projection byName(String name) {
            return projection.name().equals(name) ? projection : null;
        }

        @Override
        public Set<String> names() {
            return Set.of(projection.name());
        }

        @Override
        public Set<String> claimable() {
            return Set.of(projection.name());
        }
    }
}
