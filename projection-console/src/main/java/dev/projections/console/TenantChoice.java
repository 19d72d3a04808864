package dev.projections.console;

import java.util.ArrayList;
import java.util.List;

/**
 * The values of the Rebuild dialog's tenant menu. "All tenants" must stay out of the tenant value space (a tenant
 * may be called {@code *}), and the empty tenant must not travel as an empty string (Faces turns an empty
 * submitted value into {@code null}): so a tenant travels as {@code t:} + its name and "all" as {@code all}.
 */
final class TenantChoice {

    static final String ALL = "all";
    private static final String TENANT = "t:";

    private TenantChoice() {
    }

    /** "All tenants" and each tenant of the directory; only "(no tenant)" when the application has no directory. */
    static List<String> choices(List<String> tenants) {
        if (tenants.isEmpty()) {
            return List.of(of(""));
        }
        List<String> choices = new ArrayList<>();
        choices.add(ALL);
        tenants.forEach(tenant -> choices.add(of(tenant)));
        return choices;
    }

    static String of(String tenant) {
        return TENANT + tenant;
    }

    static boolean isAll(String choice) {
        return ALL.equals(choice);
    }

    /**
     * The tenant a choice names; an error naming the value for anything the menu never offered (in English, as the
     * engine's errors: only a forged form gets it).
     */
    static String tenant(String choice) {
        if (choice == null || !choice.startsWith(TENANT)) {
            throw new IllegalArgumentException("not a tenant choice: " + choice);
        }
        return choice.substring(TENANT.length());
    }

    static String label(String choice) {
        if (isAll(choice)) {
            return Text.of("rebuild-dialog.tenant.all");
        }
        String tenant = tenant(choice);
        return tenant.isEmpty() ? Text.of("rebuild-dialog.tenant.none") : tenant;
    }
}
