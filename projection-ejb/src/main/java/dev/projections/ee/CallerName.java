package dev.projections.ee;

import java.security.Principal;

/** Who called, for the rows that record it (a pause, a rebuild run): the principal's name, or "anonymous". */
final class CallerName {

    private CallerName() {
    }

    static String of(Principal caller) {
        try {
            String name = caller.getName();
            return name == null || name.isBlank() ? "anonymous" : name;
        } catch (RuntimeException noSecurityContext) {
            return "anonymous";
        }
    }
}
