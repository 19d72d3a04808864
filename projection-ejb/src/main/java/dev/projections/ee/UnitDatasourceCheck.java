package dev.projections.ee;

import dev.projections.config.Settings;
import dev.projections.marking.ProjectedUnits;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Every persistence unit with {@code @Projected} entities must write to the engine's database (docs/contract.md
 * §10): its marks are written on the unit's own connection, in the business transaction, while the engine claims
 * and acks them through {@code projection.datasource}. Two databases would leave every mark unseen. The same
 * datasource passes at once; another one passes when its connections report the same JDBC URL and user.
 */
final class UnitDatasourceCheck {

    private UnitDatasourceCheck() {
    }

    static void require(ProjectedUnits.Unit unit, DataSource engine, String engineName) {
        if (unit.dataSource() == null || unit.dataSource() == engine) {
            return;
        }
        Identity theUnits = identity(unit.dataSource());
        Identity theEngines = identity(engine);
        if (theUnits == null || theEngines == null || theUnits.equals(theEngines)) {
            return; // unreachable now: the engine's start-up and the unit's first use report it
        }
        throw new IllegalStateException("persistence unit " + unit.name() + " has @Projected entities but writes to "
                + (unit.dataSourceName() == null ? "" : unit.dataSourceName() + " ") + "(" + theUnits + "), while "
                + Settings.DATASOURCE + " is " + engineName + " (" + theEngines + "): marks are written on the unit's "
                + "connection and claimed through " + Settings.DATASOURCE + ", so both must be one database. Point the "
                + "unit's jta-data-source at " + engineName + ", or set " + Settings.DATASOURCE
                + " to the unit's datasource");
    }

    private record Identity(String url, String user) {
        @Override
        public String toString() {
            return url + (user == null ? "" : " as " + user);
        }
    }

    private static Identity identity(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metadata = connection.getMetaData();
            return new Identity(metadata.getURL(), metadata.getUserName());
        } catch (SQLException e) {
            return null;
        }
    }
}
