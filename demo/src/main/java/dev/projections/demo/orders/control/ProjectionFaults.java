package dev.projections.demo.orders.control;

import dev.projections.NonRetryableRefreshException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo's fault switch ({@code POST /demo/api/faults/{projection}?failNext=N&message=…}): the projection's
 * next N refreshes throw with that message, so failures, backoff and retry can be watched in the console; with
 * {@code nonRetryable=true} they throw {@link NonRetryableRefreshException} and park their marks at once.
 * {@code failAll=true} makes every refresh fail until {@code failAll=false}, as an outage would.
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

    void check(String projection) {
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
