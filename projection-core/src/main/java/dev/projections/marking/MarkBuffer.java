package dev.projections.marking;

import dev.projections.MarkKey;
import java.util.Collection;

/**
 * The marks of one transaction waiting for its commit. Automatic marks (a session's) and explicit ones
 * ({@code markDirty}) share one buffer per transaction where they can, so the transaction writes all its marks
 * with one key-ordered statement: two statements in one transaction would take their locks in two runs, and two
 * such transactions could deadlock on each other's keys.
 */
public interface MarkBuffer {

    /** Adds keys; false when the buffer was already written, and the caller must buffer them elsewhere. */
    boolean addAll(Collection<MarkKey> keys);
}
