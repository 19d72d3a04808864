package dev.projections.eclipselink;

import dev.projections.MarkKey;
import dev.projections.marking.MarkBuffer;
import dev.projections.marking.MarkSink;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The sink of plain Java: writes the marks with the store's own upsert (the statement the EE layer's sink runs) on the
 * connection it is given, and records each write and each hand-off, so a test sees how many statements a transaction
 * wrote and which keys reached the drainers, and when.
 */
final class RecordingSink implements MarkSink {

    final List<List<MarkKey>> writes = new CopyOnWriteArrayList<>();
    final List<Set<MarkKey>> handedOver = new CopyOnWriteArrayList<>();
    volatile String tenant = "";

    void clear() {
        writes.clear();
        handedOver.clear();
    }

    @Override
    public String currentTenant() {
        return tenant;
    }

    @Override
    public void write(Connection connection, List<MarkKey> sortedKeys) throws SQLException {
        writes.add(List.copyOf(sortedKeys));
        Tables.forProduct(connection.getMetaData().getDatabaseProductName()).queue()
                .upsert(connection, sortedKeys, PendingQueue.LIVE, Instant.now());
    }

    @Override
    public void committed(Set<MarkKey> keys) {
        handedOver.add(Set.copyOf(keys));
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
