package dev.projections.refresh;

/** The engine could not reach or use the database; the drainer ends and the sweep retries later. */
public final class DatabaseTroubleException extends RuntimeException {

    public DatabaseTroubleException(String message, Throwable cause) {
        super(message, cause);
    }
}
