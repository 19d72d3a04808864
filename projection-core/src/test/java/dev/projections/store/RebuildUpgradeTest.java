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

        RebuildStore runs = new RebuildStore();
        Instant now = Instant.parse("2030-01-01T11:00:00Z");
        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            RebuildRun run = runs.lease(connection, List.of("order-search"), now, Duration.ofMinutes(1), "t").orElseThrow();
            assertThat(run.runId()).isEqualTo("old-running");
            assertThat(run.partition()).isZero();
            assertThat(run.cursor()).isEqualTo("4711");
            assertThat(run.scope().isEverything()).isTrue();
            assertThat(runs.lease(connection, List.of("order-search"), now, Duration.ofMinutes(1), "u"))
                    .as("the exhausted run has nothing to list").isEmpty();

            RebuildProgress exhausted = runs.progress(connection, "old-exhausted", now).orElseThrow();
            assertThat(exhausted.partitionsDone()).isEqualTo(1);
            assertThat(exhausted.marked()).isEqualTo(99);
            assertThat(runs.finishExhausted(connection, now)).isEqualTo(1);
        }
    }
}
