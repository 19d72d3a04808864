package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.config.Settings;
import dev.projections.spi.RunningEngines;
import dev.projections.refresh.Sweep;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
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
import java.util.logging.Logger;
import java.util.function.Supplier;

/**
 * The sweep's schedule (docs/contract.md §5): a non-persistent interval timer running core's {@link Sweep}, whose
 * steps start drainers for marks no hand-off announced — left by a crash, by another instance, or due for a retry —
 * and record this instance, check its clock and sample the trends. Runs without a transaction (a long drain inside a
 * REQUIRED timeout would time out and be retried by the container, docs/pitfalls.md #14). At undeploy it stops the
 * engine: unstarted claims are released at once.
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
        }
        RunningEngines.started(health);
    }

    /** Core's {@link Sweep}: its steps and their order. */
    @Timeout
    void sweep() {
        runtime.assembled().sweep().run();
    }

    @PreDestroy
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // on the method too: Payara ignores the class's for lifecycle callbacks (docs/pitfalls.md #61)
    void stop() {
        RunningEngines.stopped(health);
        runtime.stopIfBuilt(); // then the trends of its last minutes
    }
}
