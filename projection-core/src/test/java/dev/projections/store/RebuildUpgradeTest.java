package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.RebuildProgress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A run under way when the schema gains partitions (change set 012) goes on where it was: it becomes partition 0 of
 * itself, with its cursor, and an exhausted one stays exhausted.
 */
class RebuildUpgradeTest {

    /* the change sets H2 runs before 012 (ChangelogChecksumTest lists them) */
    private static final int BEFORE_PARTITIONS = 10;

    @Test
    void aRunStartedBeforePartitionsResumesFromItsCursorAsItsOwnSinglePartition() throws Exception {
        String url = "jdbc:h2:mem:rebuild-upgrade;DB_CLOSE_DELAY=-1";
        LiquibaseSchema.update(DriverManager.getConnection(url, "sa", ""), BEFORE_PARTITIONS);
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
             Statement statement = connection.createStatement()) {
            statement.execute("""
                    INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, cursor_id, exhausted, marked,
                                                    started_at, running_projection, running_tenant)
                    VALUES ('old-running', 'order-search', 'a', 'RUNNING', '4711', FALSE, 4711,
                            TIMESTAMP WITH TIME ZONE '2030-01-01 10:00:00+00', 'order-search', 'a'),
                           ('old-exhausted', 'order-search', 'b', 'RUNNING', '99', TRUE, 99,
                            TIMESTAMP WITH TIME ZONE '2030-01-01 10:00:00+00', 'order-search', 'b')""");
        }
        LiquibaseSchema.update(DriverManager.getConnection(url, "sa", ""));

        Tables tables = Tables.forProduct("H2");
        RebuildRuns runs = tables.rebuildRuns();
        Instant now = Instant.parse("2030-01-01T11:00:00Z");
        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            RebuildRun run = tables.rebuildPartitions().lease(connection, List.of("order-search"), now, Duration.ofMinutes(1), "t").orElseThrow();
            assertThat(run.runId()).isEqualTo("old-running");
            assertThat(run.partition()).isZero();
            assertThat(run.cursor()).isEqualTo("4711");
            assertThat(run.scope().isEverything()).isTrue();
            assertThat(tables.rebuildPartitions().lease(connection, List.of("order-search"), now, Duration.ofMinutes(1), "u"))
                    .as("the exhausted run has nothing to list").isEmpty();

            RebuildProgress exhausted = tables.rebuildHistory().progress(connection, "old-exhausted", now).orElseThrow();
            assertThat(exhausted.partitionsDone()).isEqualTo(1);
            assertThat(exhausted.marked()).isEqualTo(99);
            assertThat(runs.finishExhausted(connection, now)).hasSize(1);
        }
    }

    @Test
    void aRunAPreviousReleaseStartedAfterPartitionsIsAdoptedOnceItsLeaseLapsedAndFinishes() throws Exception {
        String url = "jdbc:h2:mem:rebuild-upgrade-after;DB_CLOSE_DELAY=-1";
        LiquibaseSchema.update(DriverManager.getConnection(url, "sa", ""));
        Instant now = Instant.parse("2030-01-01T11:00:00Z");
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
             Statement statement = connection.createStatement()) {
            // the previous release's start: the run row only; one step of it leased until now + 30 s, one lapsed
            statement.execute("""
                    INSERT INTO projection_rebuild (run_id, projection, tenant_id, state, marked, exhausted, started_at,
                                                    running_projection, running_tenant, owner_token, lease_until)
                    VALUES ('old-after-012', 'order-search', 'a', 'RUNNING', 0, FALSE,
                            TIMESTAMP WITH TIME ZONE '2030-01-01 10:00:00+00', 'order-search', 'a', 'old-step',
                            TIMESTAMP WITH TIME ZONE '2030-01-01 10:59:00+00'),
                           ('old-stepping', 'order-search', 'b', 'RUNNING', 0, FALSE,
                            TIMESTAMP WITH TIME ZONE '2030-01-01 10:00:00+00', 'order-search', 'b', 'old-step',
                            TIMESTAMP WITH TIME ZONE '2030-01-01 11:00:30+00')""");
        }

        Tables tables = Tables.forProduct("H2");
        RebuildRuns runs = tables.rebuildRuns();
        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            assertThat(runs.adoptLegacyRuns(connection, now)).as("the lapsed one only").isEqualTo(1);
            assertThat(runs.adoptLegacyRuns(connection, now)).as("once").isZero();
            assertThat(runs.hasWork(connection, List.of("order-search"), now)).isTrue();

            RebuildRun run = tables.rebuildPartitions().lease(connection, List.of("order-search"), now, Duration.ofMinutes(1), "t").orElseThrow();
            assertThat(run.runId()).isEqualTo("old-after-012");
            assertThat(run.partition()).isZero();
            assertThat(run.cursor()).isNull();
            assertThat(tables.rebuildPartitions().lease(connection, List.of("order-search"), now, Duration.ofMinutes(1), "u"))
                    .as("the other is still stepped by the previous release").isEmpty();
            try (Statement statement = connection.createStatement();
                 java.sql.ResultSet rows = statement.executeQuery(PRE_PARTITION_LEASE_OF_ADOPTED)) {
                assertThat(rows.next()).as("fenced off from the previous release").isFalse();
            }

            assertThat(runs.advance(connection, run, "42", 42, true)).isTrue();
            assertThat(runs.finishExhausted(connection, now)).hasSize(1);
            RebuildProgress done = tables.rebuildHistory().progress(connection, "old-after-012", now).orElseThrow();
            assertThat(done.state()).isEqualTo(RebuildProgress.FINISHED);
            assertThat(done.marked()).isEqualTo(42);
            assertThat(runs.start(connection, "order-search", "a", now)).as("its tenant free again").isNotBlank();
        }
    }

    /* what the previous release's lease query would still take: a running run whose run-row lease lapsed */
    private static final String PRE_PARTITION_LEASE_OF_ADOPTED = """
            SELECT run_id FROM projection_rebuild WHERE run_id = 'old-after-012' AND state = 'RUNNING'
               AND (lease_until IS NULL OR lease_until <= TIMESTAMP WITH TIME ZONE '2030-01-01 11:00:00+00')""";
}
