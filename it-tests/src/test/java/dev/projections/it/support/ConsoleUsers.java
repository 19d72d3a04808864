package dev.projections.it.support;

/**
 * The console users' passwords of the test server, handed to it at start as the system properties the realm
 * reads ({@link TestDatabaseConfigurer}): the same path as PROJECTION_ADMIN_PASSWORD in production, one step up.
 */
public final class ConsoleUsers {

    public static final String ADMIN = "admin";
    public static final String ADMIN_PASSWORD = "it-admin-secret";
    public static final String VIEWER = "viewer";
    public static final String VIEWER_PASSWORD = "it-viewer-secret";

    private ConsoleUsers() {
    }

    static String serverArguments() {
        return " -Dprojection.console.admin-password=" + ADMIN_PASSWORD
                + " -Dprojection.console.viewer-password=" + VIEWER_PASSWORD;
    }
}
