package dev.projections.jdbc;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The driver behind {@code ProjectionDS}. The datasource's URL is an expression resolved at server start
 * (system property, then {@code PROJECTION_DB_URL}, else a file-based H2 database), but a WildFly
 * datasource names one driver. Rather than two datasources and a second switch to choose between them,
 * this driver hands the URL to whichever real driver accepts it, so setting the URL alone moves the
 * server from the embedded demo database to PostgreSQL or MariaDB.
 */
public final class RoutingDriver implements Driver {

    private final List<Driver> drivers = List.of(new org.postgresql.Driver(), new org.mariadb.jdbc.Driver(),
            new org.h2.Driver());

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        return driverFor(url).connect(url, info);
    }

    @Override
    public boolean acceptsURL(String url) throws SQLException {
        for (Driver driver : drivers) {
            if (driver.acceptsURL(url)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        return driverFor(url).getPropertyInfo(url, info);
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("RoutingDriver has no parent logger");
    }

    private Driver driverFor(String url) throws SQLException {
        for (Driver driver : drivers) {
            if (driver.acceptsURL(url)) {
                return driver;
            }
        }
        throw new SQLException("ProjectionDS supports jdbc:postgresql:, jdbc:mariadb: and jdbc:h2: URLs, was: " + url
                + " (set projection.db.url or PROJECTION_DB_URL)");
    }
}
