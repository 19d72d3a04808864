package dev.projections.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.config.Settings;
import dev.projections.inspect.AuditEntry;
import dev.projections.inspect.AuditLog;
import dev.projections.refresh.AdjustableClock;
import dev.projections.refresh.JdbcTransactions;
import dev.projections.store.LiquibaseSchema;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweep's retention task on H2 (docs/contract.md §12, retention): only in the instance's own minute of ten, once,
 * and bounded per turn however much is due; what a turn leaves goes with the next. Which rows go is the store's
 * contract (TrendStoreContract, on every database).
 */
class HistoryPrunerTest {

    private static final Instant EPOCH_MINUTE = Instant.parse("2030-01-01T10:00:00Z");

    private final JdbcDataSource dataSource = new JdbcDataSource();
    private final AuditLog audit = new AuditLog();
    private AdjustableClock clock;
    private HistoryPruner pruner;

    @BeforeEach
    void schema() throws Exception {
        dataSource.setURL(LiquibaseSchema.freshH2("history_pruner"));
        dataSource.setUser("sa");
        clock = new AdjustableClock(Clock.fixed(EPOCH_MINUTE, ZoneOffset.UTC));
        pruner = new HistoryPruner(audit, Tables.forProduct("H2").endedRuns(), Tables.forProduct("H2").drift(),
                new JdbcTransactions(dataSource),
                clock, "node-a", new Settings.Retention(Duration.ofDays(90), Duration.ofDays(30)));
    }

    @Test
    void aTurnRunsOnceInTheInstancesOwnMinuteAndDeletesAtMostItsBatchesTheRestGoingWithTheNextTurn() throws Exception {
        Instant old = EPOCH_MINUTE.minus(Duration.ofDays(100));
        record(HistoryPruner.BATCHES * HistoryPruner.AUDIT_BATCH + 2_000, old);
        record(3, EPOCH_MINUTE.minus(Duration.ofDays(1)));

        toNextMinuteWhere(false);
        assertThat(pruner.prune()).as("not this instance's minute").isEqualTo(new HistoryPruner.Pruned(0, 0, 0));
        toNextMinuteWhere(true);
        assertThat(pruner.prune()).as("ten full batches, then the turn stops")
                .isEqualTo(new HistoryPruner.Pruned(HistoryPruner.BATCHES * HistoryPruner.AUDIT_BATCH, 0, 0));
        assertThat(pruner.prune()).as("once per minute").isEqualTo(new HistoryPruner.Pruned(0, 0, 0));
        clock.advance(Duration.ofMinutes(HistoryPruner.PRUNE_EVERY));
        assertThat(pruner.prune()).as("the rest, ten minutes later").isEqualTo(new HistoryPruner.Pruned(2_000, 0, 0));
        assertThat(count()).as("the recent ones stay").isEqualTo(3);
    }

    @Test
    void instancesPruneInMinutesOfTheirOwnFiveMinutesOffTheirTrendPrune() {
        int own = 0;
        for (int minute = 0; minute < HistoryPruner.PRUNE_EVERY; minute++) {
            if (pruner.isOwnMinute(EPOCH_MINUTE.plus(Duration.ofMinutes(minute)))) {
                own++;
                assertThat(Math.floorMod(EPOCH_MINUTE.plus(Duration.ofMinutes(minute)).getEpochSecond() / 60
                        - "node-a".hashCode(), HistoryPruner.PRUNE_EVERY)).isEqualTo(5);
            }
        }
        assertThat(own).as("one minute in ten").isEqualTo(1);
    }

    private void toNextMinuteWhere(boolean own) {
        do {
            clock.advance(Duration.ofMinutes(1));
        } while (pruner.isOwnMinute(clock.instant().truncatedTo(ChronoUnit.MINUTES)) != own);
    }

    private void record(int entries, Instant at) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            for (int i = 0; i < entries; i++) {
                audit.record(connection, AuditEntry.of(at, "alice", "pause", "orders", null, null, null));
            }
        }
    }

    private long count() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM projection_audit")) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
