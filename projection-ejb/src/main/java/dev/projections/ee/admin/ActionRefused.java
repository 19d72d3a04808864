package dev.projections.ee.admin;

import jakarta.ejb.ApplicationException;

/**
 * A console action the engine refused (unknown projection, no failing mark with that key, a rebuild already
 * running, …): reaches the caller with the engine's message, unwrapped, and rolls the action and its audit back.
 */
@ApplicationException(rollback = true)
public class ActionRefused extends RuntimeException {

    public ActionRefused(String message, Throwable cause) {
        super(message, cause);
    }
}
