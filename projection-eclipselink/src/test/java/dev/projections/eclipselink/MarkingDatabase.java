package dev.projections.eclipselink;

import dev.projections.store.ChangelogUpdate;
import dev.projections.store.TableSchema;
import dev.projections.testsupport.MariaDbTestDatabase;
import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import liquibase.Scope;
import liquibase.ui.LoggerUIService;

/**
 * One database the marking contract runs on — H2, the test PostgreSQL, and the test MariaDB when
 * {@code PROJECTION_TEST_MARIADB_URL} names one — emptied, with the product's tables made by the real changelog.
 */
record MarkingDatabase(String name, String driver, String url, String user, String password) {

    @Override
    public String toString() {
        return name;
    }

    /** Every database of this machine, each fresh and named after {@code suffix}. */
    static List<MarkingDatabase> all(String suffix) {
        List<MarkingDatabase> databases = new ArrayList<>();
        try {
            databases.add(h2(suffix));
            databases.add(postgres(suffix));
            mariaDb(suffix).ifPresent(databases::add);
        } catch (Exception e) {
            throw new IllegalStateException("could not prepare the test databases", e);
        }
        return databases;
    }

    static MarkingDatabase h2(String suffix) throws Exception {
        String url = "jdbc:h2:mem:marking_" + suffix + ";DB_CLOSE_DELAY=-1";
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
             Statement statement = connection.createStatement()) {
            statement.execute("DROP ALL OBJECTS");
        }
        return migrated(new MarkingDatabase("H2", "org.h2.Driver", url, "sa", ""));
    }

    private static MarkingDatabase postgres(String suffix) throws Exception {
        TestDatabase database = TestDatabase.get();
        String schema = "marking_" + suffix;
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            statement.execute("CREATE SCHEMA " + schema);
        }
        String base = database.jdbcUrl();
        String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        return migrated(new MarkingDatabase("PostgreSQL", "org.postgresql.Driver", url, database.user(),
                database.password()));
    }

    private static Optional<MarkingDatabase> mariaDb(String suffix) throws Exception {
        Optional<MariaDbTestDatabase> server = MariaDbTestDatabase.fromEnvironment();
        if (server.isEmpty()) {
            return Optional.empty();
        }
        String url = server.get().freshDatabase("marking_" + suffix);
        return Optional.of(migrated(new MarkingDatabase("MariaDB", "org.mariadb.jdbc.Driver", url, server.get().user(),
                server.get().password())));
    }

    private static MarkingDatabase migrated(MarkingDatabase database) throws Exception {
        System.setProperty("liquibase.analytics.enabled", "false");
        System.setProperty("liquibase.showBanner", "false");
        try (Connection connection = database.connect()) {
            new ChangelogUpdate(TableSchema.DEFAULT, "DATABASECHANGELOG", "DATABASECHANGELOGLOCK").update(connection,
                    MarkingDatabase.class.getClassLoader(), null, Map.of(Scope.Attr.ui.name(), new LoggerUIService()));
        }
        return database;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /** The connection properties a persistence unit is created with, on either provider. */
    Map<String, Object> unitProperties() {
        return Map.of("jakarta.persistence.jdbc.driver", driver, "jakarta.persistence.jdbc.url", url,
                "jakarta.persistence.jdbc.user", user, "jakarta.persistence.jdbc.password", password,
                "jakarta.persistence.schema-generation.database.action", "drop-and-create");
    }
}
