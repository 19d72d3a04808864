package dev.projections.bench.engine;

import dev.projections.bench.BenchContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rebuild run's row read by key with raw SQL, as the rebuild scenarios watch it: the product's {@code progress}
 * would also count the run's remaining marks at every poll.
 */
public final class RebuildRunRow {

    private RebuildRunRow() {
    }

    /**
     * Polls the run's row on a connection of its own until all its ids are marked (its cursor, or every partition's,
     * exhausted: the run's {@code exhausted}) or it ended; records when.
     */
    public static void watchAllMarked(BenchContext context, String runId, AtomicLong exhaustedAt) {
        try (Connection connection = context.database().connect();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT exhausted, state FROM projection_rebuild WHERE run_id = ?")) {
            select.setString(1, runId);
            while (true) {
                try (ResultSet rows = select.executeQuery()) {
                    if (!rows.next() || !"RUNNING".equals(rows.getString(2)) || rows.getBoolean(1)) {
                        exhaustedAt.set(System.nanoTime());
                        return;
                    }
                }
                Thread.sleep(2);
            }
        } catch (Exception e) {
            throw new IllegalStateException("watching rebuild run " + runId + " failed", e);
        }
    }

    /** The run's state, read by every idle drainer each millisecond: one row by key. */
    public static String state(EngineInstance instance, String runId) {
        try {
            return instance.transactions().inNewTransaction(Duration.ofSeconds(10), connection -> {
                try (PreparedStatement select = connection.prepareStatement(
                        "SELECT state FROM projection_rebuild WHERE run_id = ?")) {
                    select.setString(1, runId);
                    try (ResultSet rows = select.executeQuery()) {
                        return rows.next() ? rows.getString(1) : "MISSING";
                    }
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("reading rebuild run " + runId + " failed", e);
        }
    }
}
