package dev.projections.ops;

import dev.projections.Projection;

/** Which optional methods of {@link Projection} a bean implements, looking through the container's client proxy. */
public final class Rebuildable {

    private Rebuildable() {
    }

    /** Whether it lists its ids, so it can be rebuilt. */
    public static boolean implementsIds(Projection bean) {
        return overrides(bean, "ids", String.class, int.class);
    }

    /** Whether it lists the ids of a scope, for scoped and partitioned runs. */
    public static boolean implementsScopedIds(Projection bean) {
        return overrides(bean, "ids", String.class, int.class, dev.projections.RebuildScope.class);
    }

    /** Whether it can delete its whole read model, for "clear and rebuild". */
    public static boolean implementsClear(Projection bean) {
        return overrides(bean, "clear");
    }

    private static boolean overrides(Projection bean, String method, Class<?>... parameters) {
        Class<?> type = bean.getClass();
        while (type != null && isProxy(type)) {
            type = type.getSuperclass();
        }
        try {
            return type != null && type.getMethod(method, parameters).getDeclaringClass() != Projection.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static boolean isProxy(Class<?> type) {
        return type.isSynthetic() || type.getName().contains("$Proxy$_$$_Weld") || type.getName().contains("$$");
    }
}
