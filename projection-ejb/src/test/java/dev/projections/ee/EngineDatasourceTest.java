package dev.projections.ee;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.marking.ProjectedUnits.Unit;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.naming.NameNotFoundException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class EngineDatasourceTest {

    private static final String PROJECTION_DS = "java:jboss/datasources/ProjectionDS";
    private static final String ORDERS_DS = "java:jboss/datasources/OrdersDS";
    private static final DataSource PROJECTION = dataSource();
    private static final DataSource ORDERS = dataSource();
    private static final Map<String, DataSource> BOUND = Map.of(PROJECTION_DS, PROJECTION, ORDERS_DS, ORDERS);
    /** As WildFly gives a unit: the object, no name; the name is found by identity. */
    private static final Function<DataSource, String> NAMES = dataSource -> BOUND.entrySet().stream()
            .filter(entry -> entry.getValue() == dataSource).map(Map.Entry::getKey).findFirst().orElse(null);

    private static DataSource lookup(String name) throws NameNotFoundException {
        DataSource dataSource = BOUND.get(name);
        if (dataSource == null) {
            throw new NameNotFoundException(name);
        }
        return dataSource;
    }

    @Test
    void unsetTheEngineTakesTheDatasourceOfTheProjectedUnitsNamedByItsJndiName() {
        EngineDatasource engine = EngineDatasource.choose(null,
                List.of(new Unit("orders", ORDERS, null), new Unit("shipping", ORDERS, null)),
                EngineDatasourceTest::lookup, NAMES);
        assertThat(engine.dataSource()).isSameAs(ORDERS);
        assertThat(engine.name()).isEqualTo(ORDERS_DS);
        assertThat(engine.chosen()).isEqualTo("the engine uses " + ORDERS_DS + ", the datasource of persistence units "
                + "orders, shipping (projection.datasource is not set)");
    }

    @Test
    void unsetWithProjectedUnitsOnTwoDatasourcesFailsNamingEachUnitAndItsJndiName() {
        assertThatThrownBy(() -> EngineDatasource.choose(null,
                List.of(new Unit("orders", ORDERS, null), new Unit("demo", PROJECTION, null)),
                EngineDatasourceTest::lookup, NAMES))
                .hasMessageContaining("demo to " + PROJECTION_DS + ", orders to " + ORDERS_DS);
    }

    @Test
    void unsetBeforeAnyProjectedUnitStartedTheEngineTakesTheDefault() {
        EngineDatasource engine = EngineDatasource.choose(null, List.of(), EngineDatasourceTest::lookup, NAMES);
        assertThat(engine.dataSource()).isSameAs(PROJECTION);
        assertThat(engine.name()).isEqualTo(PROJECTION_DS);
        assertThat(engine.chosen()).contains("projection.datasource is not set", "uses the default " + PROJECTION_DS);
    }

    @Test
    void unsetWithNoUnitAndNoDefaultBoundFailsNamingTheSettingAndWhatWasTried() {
        assertThatThrownBy(() -> EngineDatasource.choose(null, List.of(), name -> {
            throw new NameNotFoundException(name);
        }, NAMES)).hasMessageContaining("projection.datasource is not set")
                .hasMessageContaining("no persistence unit with @Projected entities on a datasource the engine can see "
                        + "had started")
                .hasMessageContaining("the default " + PROJECTION_DS + " names no datasource");
    }

    @Test
    void setItWinsOverTheUnitsDatasource() {
        EngineDatasource engine = EngineDatasource.choose(PROJECTION_DS, List.of(new Unit("orders", ORDERS, null)),
                EngineDatasourceTest::lookup, NAMES);
        assertThat(engine.dataSource()).isSameAs(PROJECTION);
        assertThat(engine.chosen()).isEqualTo("projection.datasource is " + PROJECTION_DS);
    }

    @Test
    void setToANameNothingBindsFailsNamingKeyAndValue() {
        assertThatThrownBy(() -> EngineDatasource.choose("java:/NoSuchDS", List.of(), EngineDatasourceTest::lookup,
                NAMES)).hasMessage("projection.datasource names no datasource: java:/NoSuchDS");
    }

    private static DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "a test datasource";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
