package dev.projections.ee;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Marks from {@code markDirty} inside a JTA transaction, written at commit in that transaction.
 * <p>
 * The connection is obtained (and so enlisted) when the first mark is made: a first connection may not be
 * opened inside {@code beforeCompletion}. The handle is closed at once; the managed connection stays bound to
 * the transaction, so the handle opened again at commit is the same enlisted connection, not a new resource.
 */
final class ExplicitMarks implements Synchronization {

    private static final Object KEY = ExplicitMarks.class;

    private final EngineResources resources;
    private final MarkSinkBean sink;
    private final Set<MarkKey> keys = new TreeSet<>();
    private boolean written;

    private ExplicitMarks(EngineResources resources, MarkSinkBean sink) {
        this.resources = resources;
        this.sink = sink;
    }

    static ExplicitMarks of(TransactionSynchronizationRegistry registry, EngineResources resources, MarkSinkBean sink) {
        ExplicitMarks marks = (ExplicitMarks) registry.getResource(KEY);
        if (marks == null) {
            marks = new ExplicitMarks(resources, sink);
            try (Connection enlisted = resources.dataSource().getConnection()) {
                enlisted.isValid(0);
            } catch (SQLException e) {
                throw new IllegalStateException("could not enlist the projection datasource: " + e.getMessage(), e);
            }
            registry.registerInterposedSynchronization(marks);
            registry.putResource(KEY, marks);
        }
        return marks;
    }

    synchronized void addAll(List<MarkKey> more) {
        keys.addAll(more);
    }

    @Override
    public void beforeCompletion() {
        List<MarkKey> sorted;
        synchronized (this) {
            sorted = new ArrayList<>(keys);
        }
        try (Connection connection = resources.dataSource().getConnection()) {
            sink.write(connection, sorted);
        } catch (SQLException e) {
            throw new IllegalStateException("could not write marks " + sorted + " at commit: " + e.getMessage(), e);
        }
        synchronized (this) {
            written = true;
        }
    }

    @Override
    public void afterCompletion(int status) {
        Set<MarkKey> committed;
        synchronized (this) {
            if (status != Status.STATUS_COMMITTED || !written) {
                return;
            }
            committed = Set.copyOf(keys);
        }
        sink.committed(committed);
    }
}
