package dev.projections.demo.orders.control;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo's fault switch ({@code POST /demo/api/faults/{projection}?failNext=N&message=…}): the projection's
 * next N refreshes throw with that message, so failures, backoff and retry can be watched in the console.
 */
@ApplicationScoped
public class ProjectionFaults {

    private record Fault(int remaining, String message) {
    }

    private final Map<String, Fault> faults = new ConcurrentHashMap<>();

    public void failNext(String projection, int count, String message) {
        if (count <= 0) {
            faults.remove(projection);
        } else {
            faults.put(projection, new Fault(count, message));
        }
    }

    void check(String projection) {
        Fault[] fired = new Fault[1];
        faults.computeIfPresent(projection, (name, fault) -> {
            fired[0] = fault;
            return fault.remaining() > 1 ? new Fault(fault.remaining() - 1, fault.message()) : null;
        });
        if (fired[0] != null) {
            throw new IllegalStateException(fired[0].message());
        }
    }
}
