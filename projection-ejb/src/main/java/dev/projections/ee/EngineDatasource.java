package dev.projections.ee;

import dev.projections.config.Settings;
import dev.projections.marking.CommonDatasource;
import dev.projections.marking.ProjectedUnits;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * The engine's datasource and how it was chosen (docs/contract.md §10, docs/design.md D35): {@code projection.datasource}
 * when set; unset, the datasource the persistence units with {@code @Projected} entities share, if any has started
 * (on WildFly every unit of the application starts before its components); else the default
 * {@value Settings#DEFAULT_DATASOURCE}, against which units starting later are checked.
 *
 * @param dataSource the datasource the engine claims, refreshes and migrates through
 * @param name       its JNDI name, or a description where it has none
 * @param chosen     what a message about the engine's datasource says of it, e.g. "projection.datasource is X"
 */
record EngineDatasource(DataSource dataSource, String name, String chosen) {

    /** A JNDI lookup. */
    interface Lookup {
        DataSource lookup(String name) throws NamingException;
    }

    /**
     * @param configured {@code projection.datasource}, {@code null} when not set
     * @param units      the units with {@code @Projected} entities started so far
     * @param names      a datasource object's JNDI name, or {@code null}
     */
    static EngineDatasource choose(String configured, List<ProjectedUnits.Unit> units, Lookup lookup,
                                   Function<DataSource, String> names) {
        if (configured != null) {
            return new EngineDatasource(require(lookup, configured, Settings.DATASOURCE + " names no datasource: "
                    + configured), configured, Settings.DATASOURCE + " is " + configured);
        }
        List<ProjectedUnits.Unit> named = units.stream().map(unit -> named(unit, names)).toList();
        var common = CommonDatasource.of(named);
        if (common.isPresent()) {
            ProjectedUnits.Unit unit = common.get();
            DataSource dataSource = unit.dataSource() != null ? unit.dataSource()
                    : require(lookup, unit.dataSourceName(), "persistence unit " + unit.name()
                            + "'s datasource " + unit.dataSourceName() + " cannot be looked up");
            String name = CommonDatasource.describe(unit);
            String unitNames = named.stream().map(ProjectedUnits.Unit::name).sorted().collect(Collectors.joining(", "));
            return new EngineDatasource(dataSource, name, "the engine uses " + name + ", the datasource of "
                    + (named.size() == 1 ? "persistence unit " : "persistence units ") + unitNames + " ("
                    + Settings.DATASOURCE + " is not set)");
        }
        String why = "no persistence unit with @Projected entities on a datasource the engine can see had started "
                + "when the engine did";
        return new EngineDatasource(require(lookup, Settings.DEFAULT_DATASOURCE, Settings.DATASOURCE + " is not set, "
                        + why + ", and the default " + Settings.DEFAULT_DATASOURCE + " names no datasource: set "
                        + Settings.DATASOURCE + " to the JNDI name of the datasource with the product's tables"),
                Settings.DEFAULT_DATASOURCE, Settings.DATASOURCE + " is not set and " + why
                + ", so the engine uses the default " + Settings.DEFAULT_DATASOURCE);
    }

    /** The unit with its datasource's JNDI name, found through {@code names} where its properties did not give it. */
    static ProjectedUnits.Unit named(ProjectedUnits.Unit unit, Function<DataSource, String> names) {
        return unit.dataSourceName() != null || unit.dataSource() == null ? unit
                : unit.withDataSourceName(names.apply(unit.dataSource()));
    }

    private static DataSource require(Lookup lookup, String name, String failure) {
        try {
            DataSource dataSource = lookup.lookup(name);
            if (dataSource == null) {
                throw new IllegalStateException(failure);
            }
            return dataSource;
        } catch (NamingException | ClassCastException e) {
            throw new IllegalStateException(failure, e);
        }
    }
}
