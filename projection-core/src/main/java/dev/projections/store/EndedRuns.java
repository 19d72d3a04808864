package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The retention of {@code projection_rebuild} (docs/contract.md §12): runs that ended long enough ago go, with their
 * partitions, a few at a time. The run's life while it runs is {@link RebuildRuns}'s.
 */
public final class EndedRuns {

    /*
     * Runs that ended before the retention's start and are not the latest of their projection and tenant: a later run
     * of the same projection and tenant exists (the projection index, by its prefix). The oldest first, a few at a
     * time. A run still RUNNING is never one, whatever its times.
     */
    private static final String ENDED_BEFORE = """
            SELECT run_id FROM projection_rebuild r
             WHERE r.state <> 'RUNNING' AND r.finished_at < ?
               AND EXISTS (SELECT 1 FROM projection_rebuild later
                            WHERE later.projection = r.projection AND later.tenant_id = r.tenant_id
                              AND later.started_at > r.started_at)
             ORDER BY r.finished_at%s
            """;

    private static final String DELETE_PARTITIONS = "DELETE FROM projection_rebuild_partition WHERE run_id IN (%s)";

    private static final String DELETE_RUNS = "DELETE FROM projection_rebuild WHERE run_id IN (%s) AND state <> 'RUNNING'";

    private final Dialect dialect;

    EndedRuns(Dialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Deletes at most {@code limit} runs that ended before {@code before}, with their partitions, oldest first — never
     * a running run, nor the latest run of its projection and tenant; returns how many runs went. The marks a pruned
     * run left (failing ones) stay in the queue and are refreshed as before; only the run's record and counts are gone.
     */
    public int prune(Connection connection, Instant before, int limit) throws SQLException {
        List<String> runs = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(endedBeforeSql(limit))) {
            select.setObject(1, dialect.timestamp(before));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    runs.add(rows.getString(1));
                }
            }
        }
        if (runs.isEmpty()) {
            return 0;
        }
        String ids = String.join(", ", Collections.nCopies(runs.size(), "?"));
        try (PreparedStatement deletePartitions = connection.prepareStatement(DELETE_PARTITIONS.formatted(ids));
             PreparedStatement deleteRuns = connection.prepareStatement(DELETE_RUNS.formatted(ids))) {
            for (int i = 0; i < runs.size(); i++) {
                deletePartitions.setString(i + 1, runs.get(i));
                deleteRuns.setString(i + 1, runs.get(i));
            }
            deletePartitions.executeUpdate();
            return deleteRuns.executeUpdate();
        }
    }

    /** The prune's selection of at most {@code limit} runs (package-private for the plan test). */
    String endedBeforeSql(int limit) {
        return ENDED_BEFORE.formatted(dialect.firstRows(limit));
    }
}
