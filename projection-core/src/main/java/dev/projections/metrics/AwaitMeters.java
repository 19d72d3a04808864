package dev.projections.metrics;

import dev.projections.RefreshWait.Result;
import dev.projections.freshness.RefreshWaits;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code projection.await{result}}: read-your-writes waits of this instance by how they ended — {@code refreshed},
 * {@code timed_out}, {@code not_waited} — and the time they held their threads; {@code projection.await.waiting}: the
 * threads waiting now (docs/contract.md §9, §14). A growing {@code timed_out} count says the refresh is slower than
 * the waits allow; {@code not_waited} at the cap, that {@code projection.await-max-waiters} is too low for the load.
 */
public final class AwaitMeters {

    private AwaitMeters() {
    }

    public static void register(MeterRegistry registry, RefreshWaits waits) {
        for (Result result : Result.values()) {
            FunctionTimer.builder("projection.await", waits, w -> w.count(result), w -> w.secondsWaited(result),
                            TimeUnit.SECONDS)
                    .description("read-your-writes waits by how they ended, and the time they waited")
                    .tag("result", result.name().toLowerCase(Locale.ROOT)).register(registry);
        }
        Gauge.builder("projection.await.waiting", waits, RefreshWaits::waiting)
                .description("threads waiting for the refresh of their own commits now").register(registry);
    }
}
