package dev.projections.bench.orm;

import dev.projections.MarkKey;
import dev.projections.marking.MarkBuffer;
import dev.projections.marking.MarkSink;
import dev.projections.marking.MarkSinks;
import dev.projections.store.PendingQueue;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The server's {@code MarkSinkBean} reduced to what a resource-local unit in Java SE uses: marks are upserted LIVE on
 * the session's connection at commit, and the committed keys go wherever {@link #afterCommit} says — nowhere
 * ("refresh off": the marks wait in the table) or to an instance's hand-off ("refresh on"). No tenant, and no
 * explicit {@code markDirty} marks: those need a JTA transaction.
 */
public final class BenchMarkSink implements MarkSink {

    private static BenchMarkSink installed;

    private final PendingQueue queue;
    private final Clock clock;
    private volatile Consumer<Set<MarkKey>> afterCommit = keys -> { };

    private BenchMarkSink(PendingQueue queue, Clock clock) {
        this.queue = queue;
        this.clock = clock;
    }

    /**
     * The JVM's sink, installed for the marking integration on first use (plain Java: no CDI container), refresh off.
     */
    public static synchronized BenchMarkSink install(PendingQueue queue, Clock clock) {
        if (installed == null) {
            installed = new BenchMarkSink(queue, clock);
            MarkSinks.install(installed);
        }
        installed.refreshOff();
        return installed;
    }

    /** Refresh off: committed keys are left to a later drain. */
    public void refreshOff() {
        afterCommit = keys -> { };
    }

    /** Refresh on: committed keys are handed to {@code handoff} on the committing thread. */
    public void afterCommit(Consumer<Set<MarkKey>> handoff) {
        afterCommit = handoff;
    }

    @Override
    public String currentTenant() {
        return "";
    }

    @Override
    public void write(Connection connection, List<MarkKey> sortedKeys) throws SQLException {
        queue.upsert(connection, sortedKeys, PendingQueue.LIVE, clock.instant());
    }

    @Override
    public void committed(Set<MarkKey> keys) {
        afterCommit.accept(keys);
    }

    @Override
    public Collection<MarkKey> sessionBufferOpened(MarkBuffer sessionBuffer) {
        return List.of();
    }

    @Override
    public boolean explicitMarksWaiting() {
        return false;
    }
}
