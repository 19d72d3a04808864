package dev.projections.ee;

import dev.projections.Projection;

/** Whether a projection bean implements {@code ids}, looking through the container's client proxy. */
final class Rebuildable {

    private Rebuildable() {
    }

    static boolean implementsIds(Projection bean) {
        Class<?> type = bean.getClass();
        while (type != null && isProxy(type)) {
            type = type.getSuperclass();
        }
        try {
            return type != null && type.getMethod("ids", String.class, int.class).getDeclaringClass() != Projection.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static boolean isProxy(Class<?> type) {
        return type.isSynthetic() || type.getName().contains("$Proxy$_$$_Weld") || type.getName().contains("$$");
    }
}
