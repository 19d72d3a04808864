package dev.projections.ee;

import dev.projections.config.Settings;
import dev.projections.marking.ProjectedUnits;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Every persistence unit with {@code @Projected} entities must write to the engine's database (docs/contract.md
 * §10): its marks are written on the unit's own connection, in the business transaction, while the engine claims
 * and acks them through the engine's datasource ({@link EngineDatasource}). Two databases would leave every
 * mark unseen. The same datasource passes at once; another one passes when its connections report the same JDBC URL and user.
 */
final class UnitDatasourceCheck {

    private UnitDatasourceCheck() {
    }

    /**
     * Fails when {@code unit} writes to another database than the engine's; {@code names} finds the unit's datasource's
     * JNDI name for the message (only then: it lists JNDI contexts).
     */
    static void require(ProjectedUnits.Unit unit, EngineDatasource engine, Function<DataSource, String> names) {
        if (unit.dataSource() == null || unit.dataSource() == engine.dataSource()) {
            return;
        }
        Identity theUnits = identity(unit.dataSource());
        Identity theEngines = identity(engine.dataSource());
        if (theUnits == null || theEngines == null || theUnits.equals(theEngines)) {
            return; // unreachable now: the engine's start-up and the unit's first use report it
        }
        String jndiName = EngineDatasource.named(unit, names).dataSourceName();
        throw new IllegalStateException("persistence unit " + unit.name() + " has @Projected entities but writes to "
                + (jndiName == null ? "an unnamed datasource" : jndiName) + " (" + theUnits + "), while " + engine.chosen() + " (" + theEngines + "): marks are "
                + "written on the unit's connection and claimed through the engine's datasource, so both must be one "
                + "database. Point the unit's jta-data-source at " + engine.name() + ", or set " + Settings.DATASOURCE
                + " to " + (jndiName == null ? "the unit's datasource" : jndiName));
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
