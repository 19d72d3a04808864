package dev.projections.it.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.OwnPostgres;
import dev.projections.it.support.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The database itself goes away during load (docs/contract.md §5, §8): a PostgreSQL cluster of the test's own is stopped
 * at once, like a crash, and started again 10 s later. The engine recovers without an operator and loses no
 * mark of a committed change; while the database is gone it reports once per sweep instead of logging in a
 * tight loop, and its listener for other instances' commits listens again by itself.
 */
class DatabaseRestartIT {

    // below the ephemeral port range (32768+), where a client socket could hold the port
    private static final int PORT = 25432;
    private static final Duration OUTAGE = Duration.ofSeconds(10);

    @Test
    void afterAFullDatabaseRestartTheEngineRecoversByItselfAndLosesNoMark() throws Exception {
        Path probe = FaultSetup.probeDir("database-restart-probe");
        try (OwnPostgres postgres = new OwnPostgres(PORT).start()) {
            postgres.createDatabase("projection");
            String url = postgres.url("projection");
            try (Connection connection = connect(url)) {
                FaultSetup.createProbeTables(connection);
            }
            try (ServerProcess server = new ServerProcess("db-restart", 400, FaultSetup.ear(),
                    FaultSetup.serverProperties(url, "postgres", "", probe, 20))) {
                server.start();
                Load load = new Load(List.of(server), 3);
                Instant down;
                Instant up;
                try {
                    Await.until("changes committed", Duration.ofSeconds(60), () -> load.committed() >= 40);
                    down = Instant.now();
                    postgres.crash();
                    Thread.sleep(OUTAGE.toMillis());
                    postgres.start();
                    up = Instant.now();
                    long before = load.committed();
                    Await.until("changes committed after the restart", Duration.ofSeconds(90),
                            () -> load.committed() >= before + 40);
                } finally {
                    load.close();
                }
                Await.until("every mark refreshed after the restart", Duration.ofMinutes(2),
                        () -> count(url, FaultSetup.PENDING) == 0);
                // the listener for other instances' commits (docs/design.md D55) took a new connection by itself
                Await.until("the commit listener listening again", Duration.ofMinutes(1),
                        () -> server.logContains("listening again for other instances' commits"));
                assertThat(count(url, FaultSetup.ORDER_SEARCH_WRONG)).as("order_search rows unlike the write tables")
                        .isZero();
                assertThat(count(url, FaultSetup.CUSTOMER_STATS_WRONG)).as("customer_stats rows unlike the write tables")
                        .isZero();
                assertThat(count(url, FaultSetup.PROBE_WRONG)).as("probe rows unlike their source").isZero();

                long engineLines = engineLogLines(server.log(), down, up);
                long seconds = Duration.between(down, up).toSeconds() + 1;
                assertThat(engineLines).as("the engine's log lines during a %d s outage (sweep every 1 s)", seconds)
                        .isLessThanOrEqualTo(2 * seconds + 5);
                Figures.report("database crash and restart: " + load.changes() + " changes committed, "
                        + load.refused() + " requests refused while it was down, " + seconds + " s outage, "
                        + engineLines + " engine log lines meanwhile, 0 lost");
            }
        }
    }

    /** Lines the engine ({@code dev.projections} loggers) wrote between {@code from} and {@code to}. */
    private static long engineLogLines(Path log, Instant from, Instant to) throws Exception {
        java.time.format.DateTimeFormatter format = java.time.format.DateTimeFormatter
                .ofPattern("yyyy-MM-dd HH:mm:ss,SSS").withZone(java.time.ZoneId.systemDefault());
        String start = format.format(from);
        String end = format.format(to);
        try (var lines = Files.lines(log)) {
            return lines.filter(line -> line.length() > 23 && line.substring(0, 23).compareTo(start) >= 0
                            && line.substring(0, 23).compareTo(end) <= 0)
                    .filter(line -> line.contains("[dev.projections")).count();
        }
    }

    private static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, "postgres", "");
    }

    private static long count(String url, String sql) {
        try (Connection connection = connect(url); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getLong(1) : 0;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
