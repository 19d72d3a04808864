package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.metrics.AwaitMeters;
import dev.projections.metrics.ByNameRegistry;
import dev.projections.metrics.ClockSkewGauges;
import dev.projections.metrics.LagTimer;
import dev.projections.metrics.DriftCounter;
import dev.projections.metrics.ListenerFailures;
import dev.projections.metrics.MetricsText;
import dev.projections.metrics.PendingGauges;
import dev.projections.metrics.ProcessingNodeGauges;
import dev.projections.metrics.RefreshTimer;
import dev.projections.refresh.ClockSkewRule;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The engine's meters (docs/contract.md §9). They go to the application's {@code MeterRegistry} bean when it supplies one
 * (WildFly's micrometer subsystem supplies one to every deployment, exported by the server's OTLP or Prometheus registry),
 * else to a Prometheus registry bundled in the EAR and served at {@code /projections/metrics}; with neither (the
 * application left micrometer-registry-prometheus out of its EAR) the engine keeps no metrics and says so there.
 */
@ApplicationScoped
public class EngineMetrics implements MetricsText {

    @Inject
    Instance<MeterRegistry> applicationRegistry;

    @Inject
    Foundation foundation;

    @Inject
    ProjectionRegistry projections;

    private MeterRegistry registry;
    private Supplier<String> prometheus;
    private String description;
    private RefreshTimer refreshTimer;
    private LagTimer lagTimer;

    @PostConstruct
    void init() {
        if (applicationRegistry.isResolvable()) {
            MeterRegistry application = applicationRegistry.get();
            if (forwardsOnlyByName(application)) {
                registry = new ByNameRegistry(application);
                description = "the application's MeterRegistry (" + application.getClass().getName() + ", WildFly's"
                        + " micrometer subsystem: registered by name, without descriptions or histogram buckets)";
            } else {
                registry = application;
                description = "the application's MeterRegistry (" + application.getClass().getName() + ")";
            }
        } else if (prometheusOnClassPath()) {
            BundledPrometheus bundled = new BundledPrometheus();
            registry = bundled.registry();
            prometheus = bundled.scrape();
            description = "bundled Prometheus registry";
        } else {
            // meters recorded nowhere visible: cheaper than a branch at every refresh, and nothing fails
            registry = new SimpleMeterRegistry();
            description = "no registry: the application has no MeterRegistry bean and no "
                    + "micrometer-registry-prometheus in its EAR, so the engine keeps no metrics";
        }
        new PendingGauges(foundation.dataSource(), foundation.counts(), foundation.store().control(), foundation.clock())
                .register(registry, projections.names());
        new ClockSkewGauges(foundation.stats()::clockSkew,
                new ClockSkewRule(projections.settings().shortestLeaseTime()).limit())
                .register(registry);
        ListenerFailures.register(registry, foundation.stats(), projections.names());
        DriftCounter.register(registry, foundation.stats(), projections.names());
        ProcessingNodeGauges.register(registry, foundation.stats(), foundation.settings().processing(),
                projections.names());
        refreshTimer = new RefreshTimer(registry);
        refreshTimer.register(projections.names());
        lagTimer = new LagTimer(registry, name -> projections.settings().of(name).freshnessObjective());
        lagTimer.register(projections.names());
        AwaitMeters.register(registry, foundation.waits());
    }

    /**
     * WildFly's micrometer subsystem gives each deployment a registry that exports only what is registered through its
     * by-name methods; the engine's meters are built, so they go through {@link ByNameRegistry} there
     * (docs/pitfalls.md #117). A release whose registry passes built meters on too overrides the factory methods
     * builders end in, and is used as it is.
     */
    private static boolean forwardsOnlyByName(MeterRegistry registry) {
        if (!registry.getClass().getName().equals("org.wildfly.extension.micrometer.registry.ApplicationRegistry")) {
            return false;
        }
        try {
            registry.getClass().getDeclaredMethod("newGauge", Meter.Id.class, Object.class, ToDoubleFunction.class);
            return false;
        } catch (NoSuchMethodException notOverridden) {
            return true;
        }
    }

    /**
     * Takes the engine's meters out of the server's registry, which outlives the deployment: a redeployment would
     * otherwise find and keep the old engine's gauges (by-name registration reuses a meter of the same name and tags),
     * and they would go on reading its objects.
     */
    @PreDestroy
    void removeFromTheServersRegistry() {
        if (registry instanceof ByNameRegistry bridge) {
            bridge.close();
        }
    }

    private static boolean prometheusOnClassPath() {
        try {
            Class.forName("io.micrometer.prometheusmetrics.PrometheusMeterRegistry", false,
                    EngineMetrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    public RefreshTimer refreshTimer() {
        return refreshTimer;
    }

    /** {@code projection.lag}: each committed refresh's lag, told by the engine. */
    public LagTimer lagTimer() {
        return lagTimer;
    }

    @Override
    public Optional<String> prometheus() {
        return prometheus == null ? Optional.empty() : Optional.of(prometheus.get());
    }

    @Override
    public String registryDescription() {
        return description;
    }
}
