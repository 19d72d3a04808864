package dev.projections.marking;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Where the Hibernate integration delivers its marks. Implemented by the EE layer as an application-scoped
 * CDI bean; the integration finds it through {@code CDI.current()} because Hibernate creates integrators
 * and listeners itself.
 */
public interface MarkSink {

    /** The tenant of an automatic mark when the session has none; {@code ""} for no tenant. */
    String currentTenant();

    /** Writes the marks, sorted in key order, in the transaction that owns {@code connection}. */
    void write(Connection connection, List<MarkKey> sortedKeys) throws SQLException;

    /** Called on the committing thread after a successful commit, with the keys that were written. */
    void committed(Set<MarkKey> keys);

    /**
     * A session started buffering marks in the current transaction: returns keys buffered earlier by explicit
     * {@code markDirty} calls, which the session now writes with its own; later calls join the session's buffer.
     */
    Collection<MarkKey> sessionBufferOpened(MarkBuffer sessionBuffer);

    /** Whether {@code markDirty} buffered marks in the current transaction that no session buffer holds yet. */
    boolean explicitMarksWaiting();
}
