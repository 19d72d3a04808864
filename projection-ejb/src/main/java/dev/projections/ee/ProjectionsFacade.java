package dev.projections.ee;

import dev.projections.MarkKey;
import dev.projections.Projections;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The {@link Projections} facade. */
@ApplicationScoped
public class ProjectionsFacade implements Projections {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    MarkSinkBean sink;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Override
    public void markDirty(String projection, String id) {
        markDirty(projection, java.util.Collections.singletonList(id));
    }

    @Override
    public void markDirty(String projection, Collection<String> ids) {
        List<MarkKey> keys = keysOf(projection, ids);
        if (keys.isEmpty()) {
            return;
        }
        if (transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
            ExplicitMarks.buffer(transactions, resources, sink, keys);
            return;
        }
        try (Connection connection = resources.dataSource().getConnection()) {
            sink.write(connection, keys);
        } catch (SQLException e) {
            throw new IllegalStateException("could not write marks " + keys + ": " + e.getMessage(), e);
        }
        sink.committed(Set.copyOf(keys));
    }

    private List<MarkKey> keysOf(String projection, Collection<String> ids) {
        ArgumentChecks.projection(projection, registry);
        if (ids == null) {
            throw new IllegalArgumentException("ids must not be null (projection " + projection + ")");
        }
        String tenant = ArgumentChecks.tenant(sink.currentTenant());
        TreeSet<MarkKey> keys = new TreeSet<>();
        for (String id : ids) {
            keys.add(new MarkKey(projection, tenant, ArgumentChecks.id(id, projection)));
        }
        return new ArrayList<>(keys);
    }

    @Override
    public long pending(String projection) {
        ArgumentChecks.projection(projection, registry);
        try (Connection connection = resources.dataSource().getConnection()) {
            return resources.store().pending(connection, projection);
        } catch (SQLException e) {
            throw new IllegalStateException("could not count pending marks of " + projection + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Set<String> names() {
        return registry.names();
    }

}
