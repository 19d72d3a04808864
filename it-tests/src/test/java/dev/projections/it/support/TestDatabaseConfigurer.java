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
 * The database's public schema is emptied first, so every run starts from the same state.
 */
public class TestDatabaseConfigurer {

    public void configure(@Observes(precedence = 100) SetupContainer event) throws SQLException {
        TestDatabase database = TestDatabase.get();
        resetSchema(database);
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
        container.overrideProperty("javaVmArguments", arguments.toString());
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

    private static void resetSchema(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            if (database.jdbcUrl().startsWith("jdbc:mariadb:")) {
                // MariaDB has no schemas inside a database: the URL's database is emptied by dropping it
                String name = connection.getCatalog();
                statement.execute("DROP DATABASE IF EXISTS `" + name + "`");
                statement.execute("CREATE DATABASE `" + name + "`");
                return;
            }
            statement.execute("DROP SCHEMA IF EXISTS public CASCADE");
            statement.execute("CREATE SCHEMA public");
        }
    }
}
