package dev.projections.ee;

import dev.projections.engine.Engine;
import dev.projections.engine.Foundation;
import dev.projections.config.Settings;
import dev.projections.spi.RunningEngines;
import dev.projections.refresh.CommitListener;
import dev.projections.refresh.Sweep;
import dev.projections.refresh.WakeUpLook;
import dev.projections.refresh.WakeUpSignals;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.Executors;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.function.Supplier;

/**
 * The sweep's schedule (docs/contract.md §5): a non-persistent interval timer running core's {@link Sweep}, whose
 * steps start drainers for marks no hand-off announced — left by a crash, by another instance, or due for a retry —
 * and record this instance, check its clock and sample the trends. Runs without a transaction (a long drain inside a
 * REQUIRED timeout would time out and be retried by the container, docs/pitfalls.md #14). On a processing instance
 * it also runs core's {@link WakeUpLook} every {@code projection.wake-up-interval}, on a thread of its own, so that a
 * web node's commits are refreshed between sweeps. At undeploy it stops the looks, then the engine: unstarted claims
 * are released at once.
 */
@Singleton
@Startup
@RunAs(SystemIdentity.ROLE)
@DeclareRoles(SystemIdentity.ROLE)
// with roles declared and no permission, WildFly would deny every call, a timeout silently
@PermitAll
@DependsOn({"SchemaMigration", "DrainerPool"}) // destroyed before the pool: the engine stops first
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SweepTimer {

    private static final Logger LOG = Logger.getLogger(SweepTimer.class.getName());

    @Resource
    TimerService timers;

    /** The wake-up looks' thread: one of the container's, made with the deployment's context. */
    @Resource
    ManagedThreadFactory threads;

    private ScheduledExecutorService wakeUps;
    private CommitListener listener;
    private Thread listening;
    private final AtomicBoolean wakeUpFailed = new AtomicBoolean();

    @Inject
    Foundation foundation;

    @Inject
    EngineRuntime runtime;

    @Inject
    dev.projections.Projections projections;

    /** This engine's health for checks outside this module (the optional MicroProfile readiness check). */
    private final Supplier<dev.projections.EngineHealth> health = () -> projections.health();

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // on the method too: Payara ignores the class's for lifecycle callbacks (docs/pitfalls.md #61)
    void schedule() {
        Settings settings = foundation.settings();
        // first: a name that finds nothing fails the deployment before any thread of this bean is started
        DataSource listenTo = listenDatasource(settings);
        if (!settings.enabled() || !settings.autoRefresh()) {
            // health then waits for no sweep: the engine is as ready as its database
            LOG.info("projection sweep is off (projection.enabled=" + settings.enabled()
                    + ", projection.auto-refresh=" + settings.autoRefresh() + ")");
        } else {
            long interval = settings.sweepInterval().toMillis();
            timers.createIntervalTimer(Math.min(interval, 1000), interval, new TimerConfig("projection-sweep", false));
        }
        if (!settings.processing()) {
            LOG.info("projection.processing=false: this instance is a web node; it writes marks and refreshes none, "
                    + "the instances with projection.processing=true refresh them (docs/design.md D54)");
        } else if (settings.enabled() && settings.autoRefresh() && !settings.wakeUpInterval().isZero()) {
            // a web node's commits are handed to no drainer: while one is live, look for them between sweeps, from
            // after the first sweep (which counts the web nodes)
            long every = settings.wakeUpInterval().toMillis();
            wakeUps = Executors.newSingleThreadScheduledExecutor(threads);
            wakeUps.scheduleWithFixedDelay(this::wakeUp,
                    Math.min(settings.sweepInterval().toMillis(), 1000) + every, every, TimeUnit.MILLISECONDS);
        }
        if (listenTo != null) {
            listen(listenTo, settings);
        }
        RunningEngines.started(health);
    }

    /**
     * With {@code projection.listen-datasource} set, core's {@link CommitListener} on a thread of its own (docs/design.md
     * D55): on a processing instance another instance's commit starts a drainer at once; on any instance a processing
     * instance's refreshes have the read-your-writes waits check at once. A name that finds no
     * datasource fails the deployment naming the key; on H2 and MariaDB, which have no signal, the setting is ignored
     * with a line in the log.
     */
    private DataSource listenDatasource(Settings settings) {
        String name = settings.listenDatasource();
        if (name == null) {
            return null;
        }
        DataSource source;
        try {
            source = (DataSource) new InitialContext().lookup(name);
        } catch (NamingException | ClassCastException e) {
            throw new IllegalStateException(Settings.LISTEN_DATASOURCE + " names no datasource: " + name, e);
        }
        if (!settings.enabled() || settings.processing() && !settings.autoRefresh()) {
            LOG.info(Settings.LISTEN_DATASOURCE + " is ignored: this instance refreshes nothing and its waits wait for "
                    + "nothing");
            return null;
        }
        if (!foundation.signals().signals().supported()) {
            LOG.info(Settings.LISTEN_DATASOURCE + " is ignored: only PostgreSQL signals commits between instances; "
                    + "this one looks for other instances' marks every " + Settings.WAKE_UP_INTERVAL);
            return null;
        }
        return source;
    }

    private void listen(DataSource source, Settings settings) {
        listener = new CommitListener(source, foundation.signals(), heard -> {
            if (heard == WakeUpSignals.Heard.REFRESHED || heard == WakeUpSignals.Heard.REBUILD) {
                foundation.waits().refreshedElsewhere(); // REBUILD also when it listens again after an outage
            }
            if (heard != WakeUpSignals.Heard.REFRESHED && settings.processing()) {
                Engine engine = runtime.ifBuilt();
                WakeUpLook look = engine == null ? null : engine.wakeUpLook();
                if (look != null) {
                    look.signalled(heard);
                }
            }
        });
        listening = threads.newThread(listener);
        listening.setName("projection-commit-listener");
        listening.start();
        LOG.info("projection engine: listening for other instances' commits on " + settings.listenDatasource());
    }

    /** Core's {@link Sweep}: its steps and their order. */
    @Timeout
    void sweep() {
        runtime.assembled().sweep().run();
    }

    /**
     * Core's {@link WakeUpLook}, on the wake-ups' thread, once the sweep or a commit built the engine (a look that
     * built it could do so while the deployment stops, after the engine's stop found nothing to stop). What it throws
     * is logged once until a look succeeds, and the looks go on: an error ends a scheduled task for good.
     */
    private void wakeUp() {
        try {
            Engine engine = runtime.ifBuilt();
            WakeUpLook look = engine == null ? null : engine.wakeUpLook();
            if (look != null) {
                look.run();
            }
            wakeUpFailed.set(false);
        } catch (Throwable e) {
            if (wakeUpFailed.compareAndSet(false, true)) {
                LOG.log(Level.WARNING, "PRJ401: a look for due marks between sweeps failed; the next looks and the sweep go on", e);
            }
        }
    }

    @PreDestroy
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // on the method too: Payara ignores the class's for lifecycle callbacks (docs/pitfalls.md #61)
    void stop() {
        RunningEngines.stopped(health);
        if (listener != null) {
            listener.stop();
            try {
                // within a read's bound (10 s) or a look after a signal (its queries have the short transactions' timeout)
                listening.join(TimeUnit.SECONDS.toMillis(15));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (wakeUps != null) {
            wakeUps.shutdownNow();
            try {
                // a look under way ends before the engine stops (its query has the short transactions' timeout)
                wakeUps.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        runtime.stopIfBuilt(); // then the trends of its last minutes
    }
}
