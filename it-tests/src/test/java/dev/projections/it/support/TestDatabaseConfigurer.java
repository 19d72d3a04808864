package dev.projections.it.support;

import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.jboss.arquillian.config.descriptor.api.ContainerDef;
import org.jboss.arquillian.container.spi.event.SetupContainer;
import org.jboss.arquillian.core.api.annotation.Observes;

/**
 * Chooses the test database before the managed server starts and hands it to the server as system
 * properties: a test JVM cannot set the environment of the server Arquillian launches (docs/pitfalls.md #3).
 * It observes the setup with a high precedence, so it runs before the container reads its configuration.
 * The database is emptied before the server starts and again before each test class deploys: every class starts
 * from a database only its own deployment has written to, whatever ran before it and in whatever order
 * (docs/pitfalls.md #28; CONTRIBUTING "No test depends on another's leftovers").
 */
public class TestDatabaseConfigurer {

    public void configure(@Observes(precedence = 100) SetupContainer event) throws SQLException {
        TestDatabase database = TestDatabase.get();
        empty(database);
        ContainerDef container = event.getContainer().getContainerConfiguration();
        String jvmArguments = container.getContainerProperties().getOrDefault("javaVmArguments", "");
        StringBuilder arguments = new StringBuilder(jvmArguments)
                .append(" -Dprojection.db.url=").append(database.jdbcUrl())
                .append(" -Dprojection.db.user=").append(database.user());
        // WildFly refuses an empty password; without one the datasource's default is sent (trust auth ignores it)
        if (!database.password().isEmpty()) {
            arguments.append(" -Dprojection.db.password=").append(database.password());
        }
        arguments.append(ConsoleUsers.serverArguments());
        // each pass logs to a folder of its own, which CI's end report names beside a failing class
        String logDir = System.getProperty("projection.it.server-log-dir", "");
        if (!logDir.isBlank()) {
            arguments.append(" -Djboss.server.log.dir=").append(logDir);
        }
        // a second build on the same machine (CI's JDK 25 pass runs beside the main one) moves its server's ports
        int portOffset = Integer.parseInt(System.getProperty("projection.it.port-offset", "0").strip());
        if (portOffset != 0) {
            arguments.append(" -Djboss.socket.binding.port-offset=").append(portOffset);
            container.overrideProperty("managementPort", String.valueOf(9990 + portOffset));
        }
        container.overrideProperty("javaVmArguments", arguments.toString());
    }

    /**
     * Before each test class deploys (Arquillian deploys a class's managed deployments on {@code BeforeClass}, at
     * the default precedence): the database emptied, so that the class's deployment creates the schema afresh and
     * finds no marks, runs, read-model rows or settings that an earlier class left. The previous class's deployment
     * is gone by now (undeployed on its {@code AfterClass}), so nothing of the engine writes meanwhile.
     */
    public void emptyBeforeEachClass(@Observes(precedence = 100) org.jboss.arquillian.test.spi.event.suite.BeforeClass event)
            throws SQLException {
        empty(TestDatabase.get());
    }

    /**
     * Before each test class, and every few seconds while it runs: the queue table vacuumed and analyzed, as
     * autovacuum would. The machine's PostgreSQL runs with autovacuum off (it does on this machine kind): a class
     * that grows the queue from nothing to 100,000 marks would otherwise run every statement on the statistics of
     * an empty table, and PostgreSQL then reads a key's mark through a tenant-wide index instead of the primary
     * key (docs/pitfalls.md #29).
     */
    public void vacuum(@Observes org.jboss.arquillian.test.spi.event.suite.BeforeClass event) {
        vacuumQueueTable();
        synchronized (TestDatabaseConfigurer.class) {
            if (autovacuum == null) {
                autovacuum = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "queue-table-autovacuum");
                    thread.setDaemon(true);
                    return thread;
                });
                autovacuum.scheduleWithFixedDelay(TestDatabaseConfigurer::vacuumQueueTable, 5, 5,
                        java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    private static java.util.concurrent.ScheduledExecutorService autovacuum;

    private static void vacuumQueueTable() {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            statement.execute("VACUUM ANALYZE projection_pending");
        } catch (SQLException | RuntimeException notThereYet) {
            // before the first deployment created the schema, or while the suite resets it
        }
    }

    /**
     * PostgreSQL: the public schema dropped and created. MariaDB has no schemas inside a database, and dropping the
     * database itself would leave the server's pooled connections without a current database: every table, view
     * and sequence of the URL's database is dropped instead.
     */
    private static void empty(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            if (!database.jdbcUrl().startsWith("jdbc:mariadb:")) {
                // a lock nobody gives back (an engine left running by a failed undeploy, a connection a test leaked)
                // fails the class naming the holders instead of hanging the suite
                statement.execute("SET lock_timeout = '60s'");
                try {
                    statement.execute("DROP SCHEMA IF EXISTS public CASCADE");
                } catch (SQLException timedOut) {
                    throw new SQLException("cannot empty the test database: " + lockHolders(statement), timedOut);
                }
                statement.execute("CREATE SCHEMA public");
                return;
            }
            statement.execute("SET SESSION lock_wait_timeout = 60");
            java.util.List<String> drops = new java.util.ArrayList<>();
            try (java.sql.ResultSet tables = statement.executeQuery(
                    "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = DATABASE()")) {
                while (tables.next()) {
                    String kind = switch (tables.getString(2)) {
                        case "VIEW" -> "VIEW";
                        case "SEQUENCE" -> "SEQUENCE";
                        default -> "TABLE";
                    };
                    drops.add("DROP " + kind + " IF EXISTS `" + tables.getString(1) + "`");
                }
            }
            statement.execute("SET FOREIGN_KEY_CHECKS = 0");
            for (String drop : drops) {
                statement.execute(drop);
            }
            statement.execute("SET FOREIGN_KEY_CHECKS = 1");
        }
    }

    /** The other sessions of the database and what they are doing, for the message of a drop that waited too long. */
    private static String lockHolders(Statement statement) {
        StringBuilder holders = new StringBuilder();
        try (java.sql.ResultSet sessions = statement.executeQuery("SELECT pid, application_name, state, query"
                + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
            while (sessions.next()) {
                holders.append("\n  pid ").append(sessions.getInt(1)).append(" (").append(sessions.getString(2))
                        .append(", ").append(sessions.getString(3)).append("): ").append(sessions.getString(4));
            }
        } catch (SQLException e) {
            holders.append(" (sessions unreadable: ").append(e.getMessage()).append(')');
        }
        return holders.length() == 0 ? "no other session" : "other sessions:" + holders;
    }
}
