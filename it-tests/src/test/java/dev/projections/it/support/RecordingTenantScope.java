package dev.projections.it.support;

import dev.projections.TenantScope;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tenant scope kept in a thread-local, as an application's would be; counts entries and exits. An alternative
 * with a priority, so it replaces the demo's scope in the deployments that add it.
 */
@ApplicationScoped
@jakarta.enterprise.inject.Alternative
@jakarta.annotation.Priority(100)
public class RecordingTenantScope implements TenantScope {

    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private final AtomicInteger entered = new AtomicInteger();
    private final AtomicInteger exited = new AtomicInteger();

    @Override
    public Entered enter(String tenantId) {
        String previous = CURRENT.get();
        CURRENT.set(tenantId);
        // it replaces the demo's scope in these deployments: keep the demo's projections tenant-scoped too
        String previousDemoTenant = dev.projections.demo.tenancy.DemoTenancy.enter(tenantId);
        entered.incrementAndGet();
        return () -> {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
            dev.projections.demo.tenancy.DemoTenancy.restore(previousDemoTenant);
            exited.incrementAndGet();
        };
    }

    public String current() {
        return CURRENT.get();
    }

    public int entered() {
        return entered.get();
    }

    public int exited() {
        return exited.get();
    }
}
