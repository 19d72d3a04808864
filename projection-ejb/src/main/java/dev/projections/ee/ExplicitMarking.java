package dev.projections.ee;

import dev.projections.MarkKey;
import dev.projections.engine.Foundation;
import dev.projections.ops.UnknownProjection;
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

/**
 * {@code markDirty} (docs/contract.md §2, §3): inside an active transaction the marks join it and are written at
 * its commit; in a doomed one they go with it; outside any they are written and announced at once.
 */
@ApplicationScoped
public class ExplicitMarking {

    @Inject
    Foundation foundation;

    @Inject
    ProjectionRegistry registry;

    @Inject
    MarkSinkBean sink;

    @Resource
    TransactionSynchronizationRegistry transactions;

    void markDirty(String projection, Collection<String> ids) {
        List<MarkKey> keys = keysOf(projection, ids);
        if (keys.isEmpty()) {
            return;
        }
        int status = transactions.getTransactionStatus();
        switch (status) {
            case Status.STATUS_ACTIVE -> {
                ExplicitMarks.buffer(transactions, foundation.dataSource(), sink, keys);
                return;
            }
            case Status.STATUS_MARKED_ROLLBACK, Status.STATUS_ROLLING_BACK, Status.STATUS_ROLLEDBACK -> {
                return; // joins the doomed transaction and goes with it: nothing written, nothing announced
            }
            case Status.STATUS_NO_TRANSACTION -> {
                // written at once, below
            }
            default -> throw new IllegalStateException("markDirty(\"" + projection + "\", …) called while the "
                    + "thread's transaction is " + statusName(status) + ": call it inside an active transaction, "
                    + "or outside any");
        }
        try (Connection connection = foundation.dataSource().getConnection()) {
            sink.write(connection, keys);
        } catch (SQLException e) {
            throw new IllegalStateException("could not write marks " + keys + ": " + e.getMessage(), e);
        }
        sink.committed(Set.copyOf(keys));
    }

    private static String statusName(int status) {
        return switch (status) {
            case Status.STATUS_PREPARING -> "preparing";
            case Status.STATUS_PREPARED -> "prepared";
            case Status.STATUS_COMMITTING -> "committing";
            case Status.STATUS_COMMITTED -> "committed";
            default -> "in status " + status;
        };
    }

    private List<MarkKey> keysOf(String projection, Collection<String> ids) {
        UnknownProjection.requireKnown(projection, registry);
        if (ids == null) {
            throw new IllegalArgumentException("ids must not be null (projection " + projection + ")");
        }
        String tenant = MarkKey.checkedTenant(sink.explicitTenant("markDirty(\"" + projection + "\", …)"));
        TreeSet<MarkKey> keys = new TreeSet<>();
        for (String id : ids) {
            keys.add(new MarkKey(projection, tenant, MarkKey.checkedId(id, projection)));
        }
        return new ArrayList<>(keys);
    }
}
