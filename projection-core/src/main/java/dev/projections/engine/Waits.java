package dev.projections.engine;

import dev.projections.config.Settings;
import dev.projections.freshness.IdleWaits;
import dev.projections.freshness.RefreshWaits;
import dev.projections.ops.Sql;
import dev.projections.refresh.LeaseMargin;
import dev.projections.store.Tables;
import java.time.Clock;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadFactory;
import java.util.function.BooleanSupplier;

/**
 * The waits an instance answers, over its store (docs/contract.md §14). They are built before the {@link Engine}
 * because a committing thread captures its keys before the engine's first use, and with the container's check
 * threads as the deployment made them; the engine's refresh listener wakes them.
 */
public final class Waits {

    private Waits() {
    }

    /**
     * Read-your-writes waits: the captures of committing threads and the threads waiting, each check of the queue
     * run through {@code sql} on one of {@code checkThreads}; the lease margin is the global lease's, since the clocks
     * a check compares are kept within the shortest one's.
     */
    public static RefreshWaits readYourWrites(Settings settings, Clock clock, Sql sql, Tables store,
                                              BooleanSupplier inTransaction, ThreadFactory checkThreads) {
        RefreshWaits waits = new RefreshWaits(clock, settings.awaits(), LeaseMargin.of(settings.leaseTime()),
                (keys, committedAt, margin) -> sql.call("check a read-your-writes wait",
                        connection -> store.checks().stillPending(connection, keys, committedAt, margin)),
                inTransaction, checkThreads);
        if (!settings.enabled()) {
            waits.stop(); // a disabled engine refreshes nothing: no wait waits
        }
        return waits;
    }

    /** The test support's waits for projections with no mark left. */
    public static IdleWaits idle(Settings settings, Sql sql, Tables store) {
        return new IdleWaits(settings.awaits().maxTimeout(), projections -> sql.call("check for marks left",
                connection -> {
                    Set<String> left = new TreeSet<>();
                    for (String projection : projections) {
                        if (store.checks().hasMarks(connection, projection)) {
                            left.add(projection);
                        }
                    }
                    return left;
                }));
    }
}
