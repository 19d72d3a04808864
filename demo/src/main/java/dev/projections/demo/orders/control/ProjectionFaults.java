package dev.projections.demo.orders.control;

import dev.projections.NonRetryableRefreshException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo's fault switch ({@code POST /demo/api/faults/{projection}?failNext=N&message=…}): the projection's
 * next N refreshes throw with that message, so failures, backoff and retry can be watched in the console; with
 * {@code nonRetryable=true} they throw {@link NonRetryableRefreshException} and park their marks at once.
 * {@code failAll=true} makes every refresh fail until {@code failAll=false}, as an outage would. {@code delay=200ms}
 * makes each refresh of the projection take that much longer per key, as a slow backend would ({@code delay=0}
 * lifts it).
 */
@ApplicationScoped
public class ProjectionFaults {

    private record Fault(int remaining, String message, boolean nonRetryable) {
        RuntimeException thrown() {
            return nonRetryable ? new NonRetryableRefreshException(message) : new IllegalStateException(message);
        }
    }

    private final Map<String, Fault> faults = new ConcurrentHashMap<>();
    private final Map<String, String> outages = new ConcurrentHashMap<>();
    private final Map<String, Duration> delays = new ConcurrentHashMap<>();

    /** Each refresh of {@code projection} takes {@code delay} longer per key; zero lifts it. */
    public void delay(String projection, Duration delay) {
        if (delay.isZero()) {
            delays.remove(projection);
        } else {
            delays.put(projection, delay);
        }
    }

    /** The delay each key of {@code projection} adds to its refresh, zero when none. */
    public Duration delay(String projection) {
        return delays.getOrDefault(projection, Duration.ZERO);
    }

    public void failNext(String projection, int count, String message, boolean nonRetryable) {
        if (count <= 0) {
            faults.remove(projection);
        } else {
            faults.put(projection, new Fault(count, message, nonRetryable));
        }
    }

    /** Every refresh of {@code projection} fails while {@code on}. */
    public void failAll(String projection, boolean on, String message) {
        if (on) {
            outages.put(projection, message);
        } else {
            outages.remove(projection);
        }
    }

    /** Before a refresh of {@code keys} keys of {@code projection}: waits its delay, then throws its fault if one is set. */
    void check(String projection, int keys) {
        Duration delay = delays.get(projection);
        if (delay != null) {
            try {
                Thread.sleep(delay.multipliedBy(keys).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("refresh of " + projection + " interrupted during its injected delay", e);
            }
        }
        String outage = outages.get(projection);
        if (outage != null) {
            throw new IllegalStateException(outage);
        }
        Fault[] fired = new Fault[1];
        faults.computeIfPresent(projection, (name, fault) -> {
            fired[0] = fault;
            return fault.remaining() > 1 ? new Fault(fault.remaining() - 1, fault.message(), fault.nonRetryable()) : null;
        });
        if (fired[0] != null) {
            throw fired[0].thrown();
        }
    }
}
