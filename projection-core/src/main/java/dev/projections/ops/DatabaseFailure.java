package dev.projections.ops;

import java.sql.SQLException;

/**
 * The database failed an operation's SQL: the server's trouble, not the caller's, and nothing the operation wrote
 * stays (its transaction rolls back). The message says what could not be done and the database's own text, which may
 * quote SQL: a face shows the first part and logs the cause (the management API's 503).
 */
public final class DatabaseFailure extends IllegalStateException {

    private final String what;

    public DatabaseFailure(String what, SQLException cause) {
        super("could not " + what + ": " + cause.getMessage(), cause);
        this.what = what;
    }

    /** What could not be done ("retry failing marks of orders"), without the database's text. */
    public String what() {
        return what;
    }
}
