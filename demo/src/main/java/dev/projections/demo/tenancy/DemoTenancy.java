package dev.projections.demo.tenancy;

/**
 * The demo's tenant of the current thread: set from the {@code X-Tenant} header for a request, and by
 * {@link DemoTenantScope} for a refresh. {@code ""} when there is none.
 */
public final class DemoTenancy {

    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private DemoTenancy() {
    }

    public static String current() {
        String tenant = CURRENT.get();
        return tenant == null ? "" : tenant;
    }

    /** Sets the thread's tenant and returns the previous one, for {@link #restore}. */
    public static String enter(String tenant) {
        String previous = CURRENT.get();
        CURRENT.set(tenant);
        return previous;
    }

    public static void restore(String previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
