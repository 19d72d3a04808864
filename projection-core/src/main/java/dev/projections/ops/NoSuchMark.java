package dev.projections.ops;

import dev.projections.MarkKey;

/**
 * An operation on one mark found none in the state it acts on (a retry of a key with no failing mark). An
 * {@link IllegalArgumentException}, as the {@code Projections} API promises; the management API answers it 404 by this
 * type.
 */
public final class NoSuchMark extends IllegalArgumentException {

    private final MarkKey key;

    public NoSuchMark(MarkKey key, String state, String action) {
        super("no " + state + " mark " + key + " to " + action);
        this.key = key;
    }

    public MarkKey key() {
        return key;
    }
}
