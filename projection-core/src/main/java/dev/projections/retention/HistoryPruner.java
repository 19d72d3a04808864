package dev.projections.retention;

import dev.projections.config.Settings;
import dev.projections.inspect.AuditLog;
import dev.projections.refresh.Database;
import dev.projections.refresh.Transactions;
import dev.projections.store.DriftTable;
import dev.projections.store.EndedRuns;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.sql.Connection;

/**
 * The sweep's retention task (docs/contract.md §12, retention): in one minute of every {@link #PRUNE_EVERY} — each
 * instance its own, five minutes off its trend prune, so instances do not queue behind each other's deletes — it
 * deletes the audit entries and the drift found older than {@code projection.audit-retention} and the rebuild runs that ended before
 * {@code projection.rebuild-retention} with their partitions (never a running run, nor the latest run of its
 * projection and tenant). Each batch is a transaction of its own, at most {@link #AUDIT_BATCH} entries or
 * {@link #RUN_BATCH} runs, and a turn stops after {@link #BATCHES} of each: bounded however far behind it is (a lowered
 * retention, a first run on a long history), the rest going with the next turns.
 */
public final class HistoryPruner {

    static final int PRUNE_EVERY = 10;
    static final int AUDIT_BATCH = 1000;
    static final int RUN_BATCH = 100;
    static final int BATCHES = 10;

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** What one turn deleted. */
    public record Pruned(int auditEntries, int rebuildRuns, int driftFound) {
        static final Pruned NOTHING = new Pruned(0, 0, 0);
    }

    @FunctionalInterface
    private interface Batch {
        int delete(Connection connection) throws Exception;
    }

    private final AuditLog audit;
    private final EndedRuns runs;
    private final DriftTable drift;
    private final Transactions transactions;
    private final Clock clock;
    private final String instanceId;
    private final Settings.Retention retention;
    private Instant lastTried;

    public HistoryPruner(AuditLog audit, EndedRuns runs, DriftTable drift, Transactions transactions, Clock clock,
                         String instanceId, Settings.Retention retention) {
        this.audit = audit;
        this.runs = runs;
        this.drift = drift;
        this.transactions = transactions;
        this.clock = clock;
        this.instanceId = instanceId;
        this.retention = retention;
    }

    /** Prunes when this is the instance's minute and it has not tried in it yet; what it deleted. */
    public synchronized Pruned prune() {
        Instant now = clock.instant();
        Instant minute = now.truncatedTo(ChronoUnit.MINUTES);
        if (minute.equals(lastTried) || !isOwnMinute(minute)) {
            return Pruned.NOTHING;
        }
        lastTried = minute; // tried once per minute: a database that fails it is not asked again by this minute's sweeps
        Instant auditBefore = now.minus(retention.audit());
        int entries = batches("pruning the audit log", AUDIT_BATCH,
                connection -> audit.prune(connection, auditBefore, AUDIT_BATCH));
        Instant runsBefore = now.minus(retention.rebuildRuns());
        int ended = batches("pruning the rebuild runs", RUN_BATCH,
                connection -> runs.prune(connection, runsBefore, RUN_BATCH));
        // a row per check that found drift: few, deleted in one statement with the audit log's retention
        int found = Database.call("pruning the drift found", () -> transactions.inNewTransaction(TIMEOUT,
                connection -> drift.prune(connection, auditBefore)));
        return new Pruned(entries, ended, found);
    }

    boolean isOwnMinute(Instant minute) {
        return minute.getEpochSecond() / 60 % PRUNE_EVERY == Math.floorMod(instanceId.hashCode() + 5, PRUNE_EVERY);
    }

    /** Full batches are followed by another, up to {@link #BATCHES}. */
    private int batches(String what, int size, Batch batch) {
        int total = 0;
        for (int i = 0; i < BATCHES; i++) {
            int deleted = Database.call(what, () -> transactions.inNewTransaction(TIMEOUT, batch::delete));
            total += deleted;
            if (deleted < size) {
                break;
            }
        }
        return total;
    }
}
