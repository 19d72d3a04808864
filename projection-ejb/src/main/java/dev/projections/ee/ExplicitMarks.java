package dev.projections.ee;

import dev.projections.MarkKey;
import dev.projections.marking.MarkBuffer;
import dev.projections.marking.MarkSink;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * Marks from {@code markDirty} inside a JTA transaction in which no Hibernate session buffers marks yet, written
 * at commit in that transaction. When a session starts buffering later in the transaction, these keys are handed
 * over to it ({@link #handOver}) so the transaction still writes one statement.
 * <p>
 * The connection is obtained (and so enlisted) when the first mark is made: a first connection may not be
 * opened inside {@code beforeCompletion}. The handle is closed at once; the managed connection stays bound to
 * the transaction, so the handle opened again at commit is the same enlisted connection, not a new resource.
 */
final class ExplicitMarks implements Synchronization, MarkBuffer {

    private final DataSource dataSource;
    private final MarkSink sink;
    private final Set<MarkKey> keys = new TreeSet<>();
    private final Set<MarkKey> written = new TreeSet<>();
    private boolean closed;

    private ExplicitMarks(DataSource dataSource, MarkSink sink) {
        this.dataSource = dataSource;
        this.sink = sink;
    }

    /** Buffers {@code more} in the transaction's buffer: a session's if one is open, else this kind. */
    static void buffer(TransactionSynchronizationRegistry registry, DataSource dataSource, MarkSink sink,
                       List<MarkKey> more) {
        MarkBuffer current = (MarkBuffer) registry.getResource(MarkBuffer.class);
        if (current != null && current.addAll(more)) {
            return;
        }
        ExplicitMarks marks = (ExplicitMarks) registry.getResource(ExplicitMarks.class);
        if (marks == null) {
            marks = new ExplicitMarks(dataSource, sink);
            try (Connection enlisted = dataSource.getConnection()) {
                enlisted.isValid(0);
            } catch (SQLException e) {
                throw new IllegalStateException("could not enlist the projection datasource: " + e.getMessage(), e);
            }
            registry.registerInterposedSynchronization(marks);
            registry.putResource(ExplicitMarks.class, marks);
            if (current == null) {
                registry.putResource(MarkBuffer.class, marks);
            }
        }
        if (!marks.addAll(more)) {
            throw new IllegalStateException("marks " + more + " arrive after the transaction wrote its marks");
        }
    }

    @Override
    public synchronized boolean addAll(Collection<MarkKey> more) {
        if (closed) {
            return false;
        }
        keys.addAll(more);
        return true;
    }

    /** A session's buffer takes over the keys buffered so far, to write them with its own. */
    synchronized Collection<MarkKey> handOver() {
        if (closed) {
            return List.of(); // already written at commit: handing them over would write them twice
        }
        List<MarkKey> handed = new ArrayList<>(keys);
        keys.clear();
        return handed;
    }

    @Override
    public void beforeCompletion() {
        List<MarkKey> sorted;
        synchronized (this) {
            closed = true;
            sorted = new ArrayList<>(keys);
        }
        if (sorted.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection()) {
            sink.write(connection, sorted);
        } catch (SQLException e) {
            throw new IllegalStateException("could not write marks " + sorted + " at commit: " + e.getMessage(), e);
        }
        synchronized (this) {
            written.addAll(sorted);
        }
    }

    @Override
    public void afterCompletion(int status) {
        Set<MarkKey> committed;
        synchronized (this) {
            if (status != Status.STATUS_COMMITTED || written.isEmpty()) {
                return;
            }
            committed = Set.copyOf(written);
        }
        sink.committed(committed);
    }
}
