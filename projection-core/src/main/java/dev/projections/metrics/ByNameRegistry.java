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
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * A registry that creates each meter registered in it in {@code target}, through {@code target}'s by-name methods
 * ({@code gauge(name, tags, …)}, {@code timer(name, tags)}, {@code more().counter(…)} …), never its builders.
 *
 * <p>For WildFly's micrometer subsystem: the {@code MeterRegistry} bean it gives a deployment passes only those
 * methods on to the server's registry, which its OTLP or Prometheus registry exports; a meter registered through a
 * builder ({@code Gauge.builder(…).register(registry)}, as every meter of the engine is) stays in a local registry that
 * nothing exports (docs/pitfalls.md #117). Registered here, the builder's meter reaches the server's registry by name.
 * What the by-name methods cannot carry is lost on the way: descriptions, base units and a timer's histogram buckets
 * (a timer exports its count, sum and max).
 */
public final class ByNameRegistry extends MeterRegistry {

    private final MeterRegistry target;

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
        target.gauge(id.getName(), id.getTagsAsIterable(), obj, valueFunction);
        Gauge there = target.find(id.getName()).tags(id.getTagsAsIterable()).gauge();
        if (there == null) {
            throw new IllegalStateException("gauge " + id + " was registered by name in "
                    + target.getClass().getName() + " but is not found there");
        }
        return there;
    }

    @Override
    protected Counter newCounter(Meter.Id id) {
        return target.counter(id.getName(), id.getTagsAsIterable());
    }

    @Override
    protected Timer newTimer(Meter.Id id, DistributionStatisticConfig distribution, PauseDetector pauseDetector) {
        return target.timer(id.getName(), id.getTagsAsIterable());
    }

    @Override
    protected DistributionSummary newDistributionSummary(Meter.Id id, DistributionStatisticConfig distribution,
                                                         double scale) {
        return target.summary(id.getName(), id.getTagsAsIterable());
    }

    @Override
    protected LongTaskTimer newLongTaskTimer(Meter.Id id, DistributionStatisticConfig distribution) {
        return target.more().longTaskTimer(id.getName(), id.getTagsAsIterable());
    }

    @Override
    protected <T> TimeGauge newTimeGauge(Meter.Id id, T obj, TimeUnit valueFunctionUnit,
                                         ToDoubleFunction<T> valueFunction) {
        return target.more().timeGauge(id.getName(), id.getTagsAsIterable(), obj, valueFunctionUnit, valueFunction);
    }

    @Override
    protected <T> FunctionTimer newFunctionTimer(Meter.Id id, T obj, ToLongFunction<T> countFunction,
                                                 ToDoubleFunction<T> totalTimeFunction,
                                                 TimeUnit totalTimeFunctionUnit) {
        return target.more().timer(id.getName(), id.getTagsAsIterable(), obj, countFunction, totalTimeFunction,
                totalTimeFunctionUnit);
    }

    @Override
    protected <T> FunctionCounter newFunctionCounter(Meter.Id id, T obj, ToDoubleFunction<T> countFunction) {
        return target.more().counter(id.getName(), id.getTagsAsIterable(), obj, countFunction);
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
