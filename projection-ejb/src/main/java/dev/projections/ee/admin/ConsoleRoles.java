package dev.projections.ee.admin;

/** The console's roles (docs/contract.md §12). */
public final class ConsoleRoles {

    /** May look and act. */
    public static final String ADMIN = "projection-admin";
    /** May look. */
    public static final String VIEWER = "projection-viewer";

    private ConsoleRoles() {
    }
}
