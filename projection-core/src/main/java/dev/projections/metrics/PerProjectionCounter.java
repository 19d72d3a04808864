package dev.projections.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/** A counter per projection ({@code name{projection}}), read when scraped from what the engine counts. */
final class PerProjectionCounter {

    private PerProjectionCounter() {
    }

    static void register(MeterRegistry registry, String name, String description, Iterable<String> projections,
                         ToDoubleFunction<String> count) {
        for (String projection : projections) {
            FunctionCounter.builder(name, projection, count).description(description).tag("projection", projection)
                    .register(registry);
        }
    }
}
