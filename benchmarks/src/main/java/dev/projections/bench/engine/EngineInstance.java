package dev.projections.bench.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RefreshListener;
import dev.projections.bench.db.BenchDatabase;
import dev.projections.bench.db.StatementCounting;
import dev.projections.config.Settings;
import dev.projections.engine.Engine;
import dev.projections.engine.EngineBuilder;
import dev.projections.engine.Observers;
import dev.projections.engine.PlainContainer;
import dev.projections.ops.Operations;
import dev.projections.refresh.DatabaseTroubleException;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.RebuildStepper;
import dev.projections.refresh.RefreshEngine;
import dev.projections.refresh.Sweep;
import dev.projections.store.Tables;
import java.time.Clock;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One "instance" of the product, assembled by core's {@link Engine} as the server's is: an engine with its own
 * connection pool, hand-off, drainer threads and settings, deploying one projection. Two of these on the same
 * database are two servers sharing the pending table. After a commit, {@link #committed} hands the keys to core's
 * drainer launcher, as the server's after-commit observer does: no committing thread ever waits.
 */
public final class EngineInstance implements AutoCloseable {

    /** Names the instances apart in the instances' table, as the servers' node names do. */
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final HikariDataSource pool;
    private final ExecutorService threads;
    private final Engine engine;
    private final AtomicReference<Throwable> failure;

    private EngineInstance(HikariDataSource pool, ExecutorService threads, Engine engine,
                           AtomicReference<Throwable> failure) {
        this.pool = pool;
        this.threads = threads;
        this.engine = engine;
        this.failure = failure;
    }

    /**
     * @param workers    {@code projection.workers}: the hand-off's bound on drainers
     * @param withRebuild whether drainers step rebuild runs (the EE layer always gives them a stepper, with pages of
     *                    {@code projection.rebuild-page-size} ids)
     * @param statements counts the engine's statement executions; {@code null} for none
     */
    public static EngineInstance start(BenchDatabase database, Tables store, Clock clock, Projection projection,
                                       int workers, RefreshListener listener, boolean withRebuild,
                                       LongAdder statements) {
        return start(database, store, clock, List.of(projection), workers, listener, withRebuild, statements);
    }

    /** An instance deploying several projections, each with its own settings as the server resolves them. */
    public static EngineInstance start(BenchDatabase database, Tables store, Clock clock, List<Projection> projections,
                                       int workers, RefreshListener listener, boolean withRebuild,
                                       LongAdder statements) {
        Properties deployment = new Properties();
        deployment.setProperty(Settings.WORKERS, Integer.toString(workers));
        // the scenarios drive the drainers themselves: an operation (a rebuild's start) starts none of its own
        deployment.setProperty(Settings.AUTO_REFRESH, "false");
        // as the server reads them: each projection's own settings (its defaultSettings()) too
        dev.projections.config.SettingSource source = dev.projections.config.SettingSource.standard(
                System.getProperties(), System.getenv(), deployment);
        Settings settings = dev.projections.config.ProjectionSettings.resolve(Settings.load(source), source,
                projections);
        // a connection per drainer, and one for the checks of whoever drives the instance
        HikariDataSource pool = database.pool("engine", settings.workers() + 2);
        // more threads than slots, as the server's pool has: the hand-off, not the pool, bounds the drainers
        ExecutorService threads = Executors.newFixedThreadPool(settings.workers() + 1, runnable -> {
            Thread thread = new Thread(runnable, "handoff-drainer");
            thread.setDaemon(true);
            return thread;
        });
        AtomicReference<Throwable> failure = new AtomicReference<>();
        EngineBuilder builder = Engine.builder()
                .dataSource(pool)
                .store(store)
                .container(PlainContainer.on(pool, threads)
                        .transactions(new JdbcTransactions(statements == null ? pool
                                : StatementCounting.wrap(pool, statements)))
                        .clock(clock))
                .settings(settings)
                .projections(ProjectionCatalog.of(projections.toArray(Projection[]::new)))
                .observers(Observers.NONE.listener(listener))
                .instanceId("bench-" + INSTANCES.incrementAndGet())
                .troubles(new FailOnTrouble(failure))
                .unexpected(e -> failure.compareAndSet(null, e));
        if (!withRebuild) {
            builder.withoutRebuildSteps();
        }
        return new EngineInstance(pool, threads, builder.build(), failure);
    }

    /**
     * One drainer thread's loop step: a drainer turn, and when it found nothing while work is left for the instance
     * (marks held by another drainer's claim, a rebuild step in progress elsewhere) a pause of a millisecond, as a
     * sweep would come back later; false once nothing is left.
     */
    public ParallelLoop.Step drainerStep(BooleanSupplier workLeft) {
        return () -> {
            if (engine().drain()) {
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
        return ParallelLoop.run(threads, "drainer", drainerStep(engine()::hasDueWork));
    }

    /** As a sweep that found marks due: a drainer collecting is asked to look, or one starts. */
    public void sweep() {
        engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
    }

    /** On the committing thread, after the commit: what {@code MarkSink.committed} does in the server. */
    public void committed(Set<MarkKey> keys) {
        engine.drainers().committed(keys);
    }

    /**
     * Waits until no drainer runs, no key waits in the hand-off and nothing is due, starting a drainer the way the
     * sweep would when marks are due with nobody working on them. Throws what a drainer threw.
     */
    public void awaitQuiet(long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            rethrowFailure();
            Handoff handoff = engine.handoff();
            if (handoff.inFlight() == 0 && handoff.waiting() == 0) {
                if (!engine().hasDueWork()) {
                    rethrowFailure();
                    return;
                }
                engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("drainers still busy after " + timeoutMillis + " ms");
            }
            Thread.sleep(2);
        }
    }

    private void rethrowFailure() {
        Throwable e = failure.get();
        if (e != null) {
            throw new IllegalStateException("a drainer failed: " + e, e);
        }
    }

    public RefreshEngine engine() {
        return engine.refresh();
    }

    public Handoff handoff() {
        return engine.handoff();
    }

    public RebuildStepper rebuilds() {
        return engine.rebuilds();
    }

    /** The instance's operations, as the console and the API call them (a rebuild's start). */
    public Operations operations() {
        return engine.operations();
    }

    public JdbcTransactions transactions() {
        return (JdbcTransactions) engine.transactions();
    }

    public Settings settings() {
        return engine.settings();
    }

    @Override
    public void close() throws InterruptedException {
        try {
            engine().stop();
        } finally {
            threads.shutdown();
            threads.awaitTermination(30, TimeUnit.SECONDS);
            pool.close();
        }
    }

    /** A benchmark's drainer meeting database trouble is a failed run, not a warning for the next sweep. */
    private record FailOnTrouble(AtomicReference<Throwable> failure) implements Sweep.Troubles {
        @Override
        public void record(DatabaseTroubleException e) {
            failure.compareAndSet(null, e);
        }

        @Override
        public void report() {
        }
    }
}
