package dev.projections.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MariaDB (or MySQL) server the MariaDB tests run against: the one named by {@value #URL} (with {@code _USER},
 * default {@code root}, and {@code _PASSWORD}, default empty), e.g. {@code jdbc:mariadb://127.0.0.1:3306/projection_test}.
 * There is no embedded fallback as for PostgreSQL, so without the variable the tests say so and are skipped; CI
 * sets it. Each test class works in a database of its own, named after the URL's with a suffix, dropped and
 * created again per run.
 */
public final class MariaDbTestDatabase {

    public static final String URL = "PROJECTION_TEST_MARIADB_URL";

    private static final Pattern DATABASE = Pattern.compile("^(jdbc:(?:mariadb|mysql)://[^/]+/)([^?]*)(.*)$");

    private final String jdbcUrl;
    private final String user;
    private final String password;

    private MariaDbTestDatabase(String jdbcUrl, String user, String password) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
    }

    /** The server named by the environment, if any. */
    public static Optional<MariaDbTestDatabase> fromEnvironment() {
        String url = System.getenv(URL);
        if (url == null || url.isBlank()) {
            return Optional.empty();
        }
        String user = System.getenv(URL.replace("_URL", "_USER"));
        String password = System.getenv(URL.replace("_URL", "_PASSWORD"));
        return Optional.of(new MariaDbTestDatabase(url, user == null ? "root" : user, password == null ? "" : password));
    }

    /**
     * Drops and creates the database {@code <the URL's database>_<suffix>} and returns the URL that uses it.
     */
    public String freshDatabase(String suffix) throws SQLException {
        Matcher parts = DATABASE.matcher(jdbcUrl);
        if (!parts.matches() || parts.group(2).isEmpty()) {
            throw new IllegalStateException(URL + " must name a database (jdbc:mariadb://host:port/database), was "
                    + jdbcUrl);
        }
        String database = parts.group(2) + "_" + suffix;
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + database);
            statement.execute("CREATE DATABASE " + database);
        }
        return parts.group(1) + database + parts.group(3);
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    public Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }
}
