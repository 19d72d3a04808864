package dev.projections.marking;

import dev.projections.config.Settings;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The datasource that the persistence units with {@code @Projected} entities share: the engine's when
 * {@code projection.datasource} is not set (docs/contract.md §10, docs/design.md D35). Two units share one when
 * their sessions write through the same {@code DataSource} object or, where a unit's object is not known, under the
 * same JNDI name. Units on different datasources fail, naming each unit and its datasource: marks are written on
 * each unit's connection and claimed through one datasource, and the engine cannot tell which one is meant. A unit
 * whose connections come from no datasource the engine can see (a {@code MultiTenantConnectionProvider}, a
 * DriverManager unit) does not take part in the choice: it passed with the default before the default followed the
 * units, and the check at its start compares what it can.
 */
public final class CommonDatasource {

    private CommonDatasource() {
    }

    /**
     * The datasource all {@code units} share, as one of them (its {@code dataSource} or, failing that, its
     * {@code dataSourceName} names it); empty when no unit has a datasource the engine can see.
     *
     * @throws IllegalStateException when the units write to different datasources
     */
    public static Optional<ProjectedUnits.Unit> of(List<ProjectedUnits.Unit> units) {
        List<ProjectedUnits.Unit> sorted = units.stream()
                .filter(unit -> unit.dataSource() != null || unit.dataSourceName() != null)
                .sorted(Comparator.comparing(ProjectedUnits.Unit::name, Comparator.nullsFirst(Comparator.naturalOrder())))
                .toList();
        if (sorted.isEmpty()) {
            return Optional.empty();
        }
        ProjectedUnits.Unit first = sorted.get(0);
        if (sorted.stream().allMatch(unit -> same(first, unit))) {
            return Optional.of(first);
        }
        throw new IllegalStateException("the persistence units with @Projected entities write to different "
                + "datasources: " + sorted.stream().map(unit -> unit.name() + " to " + describe(unit))
                .collect(Collectors.joining(", ")) + "; " + Settings.DATASOURCE + " is not set, and the engine claims marks "
                + "through one datasource. Point every such unit's jta-data-source at one datasource, or, when they "
                + "are one database through different datasources, set " + Settings.DATASOURCE + " to one of them");
    }

    /** The unit's datasource as messages name it: its JNDI name, else "an unnamed datasource". */
    public static String describe(ProjectedUnits.Unit unit) {
        return unit.dataSourceName() != null ? unit.dataSourceName() : "an unnamed datasource";
    }

    private static boolean same(ProjectedUnits.Unit a, ProjectedUnits.Unit b) {
        if (a.dataSource() != null && b.dataSource() != null) {
            return a.dataSource() == b.dataSource();
        }
        return a.dataSourceName() != null && a.dataSourceName().equals(b.dataSourceName());
    }
}
