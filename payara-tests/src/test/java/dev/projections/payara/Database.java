package dev.projections.payara;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/** The test's own PostgreSQL database, read and written behind the server's back. */
record Database(String host, int port, String name, String user, String password) {

    Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + name, user, password);
    }

    /** Dropped (whoever is connected) and created empty. */
    void recreate() throws SQLException {
        try (Connection admin = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/postgres",
                user, password); Statement sql = admin.createStatement()) {
            sql.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            sql.execute("CREATE DATABASE " + name);
        }
    }

    /** The single number {@code query} answers. */
    long count(String query) throws SQLException {
        try (Connection connection = connect(); Statement sql = connection.createStatement();
             ResultSet rs = sql.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    void execute(String update) throws SQLException {
        try (Connection connection = connect(); Statement sql = connection.createStatement()) {
            sql.executeUpdate(update);
        }
    }

    /** Until no mark is left. */
    void awaitNoMarks() throws Exception {
        Awaits.until(() -> count("SELECT count(*) FROM projection_pending"), count -> count == 0, Duration.ofSeconds(60));
    }
}
