package dev.projections.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.internal.DefaultGauge;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A registry that creates each meter registered in it in {@code target}, through {@code target}'s by-name methods
 * ({@code gauge(name, tags, …)}, {@code timer(name, tags)}, {@code more().counter(…)} …), never its builders.
 *
 * <p>For WildFly's micrometer subsystem: the {@code MeterRegistry} bean it gives a deployment passes only those
 * methods on to the server's registry, which its OTLP or Prometheus registry exports; a meter registered through a
 * builder ({@code Gauge.builder(…).register(registry)}, as every meter of the engine is) stays in a local registry that
 * nothing exports (docs/pitfalls.md #117). Registered here, the builder's meter reaches the server's registry by name.
 * What the by-name methods cannot carry is lost on the way: descriptions, base units and a timer's histogram buckets
 * (a timer exports its count, sum and max, in the target's base time unit). A gauge's or a counter's base unit goes
 * into its name instead ({@code projection.oldest.age} in seconds arrives as {@code projection.oldest.age.seconds}),
 * so that a collector's Prometheus export names it as the bundled registry does ({@code projection_oldest_age_seconds}).
 *
 * <p>The target outlives the deployment (WildFly keeps the server's registry across redeployments, and a by-name
 * registration finds and keeps an earlier meter of the same name and tags): {@link #close()} removes every meter
 * registered there through this registry, and the engine closes it when it stops.
 */
public final class ByNameRegistry extends MeterRegistry {

    private static final Logger LOG = Logger.getLogger(ByNameRegistry.class.getName());
    /** The tag WildFly's deployment registry adds to every meter it registers for a deployment. */
    private static final String DEPLOYMENT_TAG = "WF_DEPLOYMENT";

    private final MeterRegistry target;
    /** What was registered in the target through this registry: removed from it by {@link #close()}. */
    private final List<Meter> registeredThere = new CopyOnWriteArrayList<>();

    public ByNameRegistry(MeterRegistry target) {
        super(Clock.SYSTEM);
        this.target = target;
    }

    /*
     * A gauge built with strongReference(true) hands over a function that holds its object; the target's gauge keeps
     * that function, so the object lives as long as the gauge there, though the target refers to it weakly itself.
     */
    @Override
    protected <T> Gauge newGauge(Meter.Id id, T obj, ToDoubleFunction<T> valueFunction) {
        String name = withUnit(id);
        target.gauge(name, id.getTagsAsIterable(), obj, valueFunction);
        // by-name gauge() answers the object, not the gauge: found again by its exact tags (the target's own aside)
        Gauge there = target.find(name).gauges().stream().filter(gauge -> sameTags(gauge.getId(), id)).findFirst()
                .orElse(null);
        if (there == null) {
            LOG.log(Level.WARNING, "PRJ302: gauge {0} was registered by name in {1} but is not found there; kept here, where"
                    + " nothing exports it", new Object[] {id, target.getClass().getName()});
            return new DefaultGauge<>(id, obj, valueFunction);
        }
        return registered(there);
    }

    @Override
    protected Counter newCounter(Meter.Id id) {
        return registered(target.counter(withUnit(id), id.getTagsAsIterable()));
    }

    @Override
    protected Timer newTimer(Meter.Id id, DistributionStatisticConfig distribution, PauseDetector pauseDetector) {
        return registered(target.timer(id.getName(), id.getTagsAsIterable()));
    }

    @Override
    protected DistributionSummary newDistributionSummary(Meter.Id id, DistributionStatisticConfig distribution,
                                                         double scale) {
        return registered(target.summary(withUnit(id), id.getTagsAsIterable()));
    }

    @Override
    protected LongTaskTimer newLongTaskTimer(Meter.Id id, DistributionStatisticConfig distribution) {
        return registered(target.more().longTaskTimer(id.getName(), id.getTagsAsIterable()));
    }

    @Override
    protected <T> TimeGauge newTimeGauge(Meter.Id id, T obj, TimeUnit valueFunctionUnit,
                                         ToDoubleFunction<T> valueFunction) {
        return registered(target.more().timeGauge(id.getName(), id.getTagsAsIterable(), obj, valueFunctionUnit,
                valueFunction));
    }

    @Override
    protected <T> FunctionTimer newFunctionTimer(Meter.Id id, T obj, ToLongFunction<T> countFunction,
                                                 ToDoubleFunction<T> totalTimeFunction,
                                                 TimeUnit totalTimeFunctionUnit) {
        return registered(target.more().timer(id.getName(), id.getTagsAsIterable(), obj, countFunction,
                totalTimeFunction, totalTimeFunctionUnit));
    }

    @Override
    protected <T> FunctionCounter newFunctionCounter(Meter.Id id, T obj, ToDoubleFunction<T> countFunction) {
        return registered(target.more().counter(withUnit(id), id.getTagsAsIterable(), obj, countFunction));
    }

    /** Removes from the target every meter registered there through this registry, then closes this one. */
    @Override
    public void close() {
        for (Meter meter : registeredThere) {
            target.remove(meter);
        }
        registeredThere.clear();
        super.close();
    }

    private <M extends Meter> M registered(M there) {
        registeredThere.add(there);
        return there;
    }

    /** The name, with the base unit the by-name call cannot carry appended (once). */
    private static String withUnit(Meter.Id id) {
        String unit = id.getBaseUnit();
        if (unit == null || unit.isBlank() || id.getName().endsWith("." + unit)) {
            return id.getName();
        }
        return id.getName() + "." + unit;
    }

    private static boolean sameTags(Meter.Id there, Meter.Id here) {
        List<Tag> tags = there.getTags().stream().filter(tag -> !tag.getKey().equals(DEPLOYMENT_TAG)).toList();
        return tags.equals(here.getTags());
    }

    /** No by-name method registers a custom meter: refused, rather than kept where nothing exports it. */
    @Override
    protected Meter newMeter(Meter.Id id, Meter.Type type, Iterable<Measurement> measurements) {
        throw new UnsupportedOperationException("meter " + id.getName() + " of type " + type
                + " cannot be registered by name in " + target.getClass().getName());
    }

    @Override
    protected TimeUnit getBaseTimeUnit() {
        return TimeUnit.SECONDS;
    }

    @Override
    protected DistributionStatisticConfig defaultHistogramConfig() {
        return DistributionStatisticConfig.NONE;
    }
}
