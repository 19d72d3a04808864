package dev.projections.marking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.marking.ProjectedUnits.Unit;
import java.lang.reflect.Proxy;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class CommonDatasourceTest {

    private static final DataSource ORDERS = dataSource();
    private static final DataSource BILLING = dataSource();

    @Test
    void noUnitGivesNoChoice() {
        assertThat(CommonDatasource.of(List.of())).isEmpty();
    }

    @Test
    void unitsWritingThroughOneDatasourceObjectShareItWhateverTheirNames() {
        Unit orders = new Unit("orders", ORDERS, "java:jboss/datasources/OrdersDS");
        Unit shipping = new Unit("shipping", ORDERS, null);
        assertThat(CommonDatasource.of(List.of(shipping, orders))).hasValueSatisfying(unit -> {
            assertThat(unit.dataSource()).isSameAs(ORDERS);
            assertThat(unit.dataSourceName()).isEqualTo("java:jboss/datasources/OrdersDS");
        });
    }

    @Test
    void unitsWithoutADatasourceObjectShareOneByItsJndiName() {
        Unit orders = new Unit("orders", null, "jdbc/OrdersDS");
        Unit shipping = new Unit("shipping", null, "jdbc/OrdersDS");
        assertThat(CommonDatasource.of(List.of(orders, shipping)).orElseThrow().dataSourceName())
                .isEqualTo("jdbc/OrdersDS");
    }

    @Test
    void unitsOnDifferentDatasourcesFailNamingEachUnitAndItsDatasourceAndTheSetting() {
        Unit orders = new Unit("orders", ORDERS, "java:jboss/datasources/OrdersDS");
        Unit billing = new Unit("billing", BILLING, "java:jboss/datasources/BillingDS");
        assertThatThrownBy(() -> CommonDatasource.of(List.of(orders, billing)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("billing to java:jboss/datasources/BillingDS, "
                        + "orders to java:jboss/datasources/OrdersDS")
                .hasMessageContaining("projection.datasource is not set");
    }

    @Test
    void twoDatasourceObjectsAreTwoDatasourcesEvenUnderOneName() {
        // what a unit's properties name and what it writes through can differ; the object decides
        Unit orders = new Unit("orders", ORDERS, "java:comp/DefaultDataSource");
        Unit billing = new Unit("billing", BILLING, "java:comp/DefaultDataSource");
        assertThatThrownBy(() -> CommonDatasource.of(List.of(orders, billing)))
                .hasMessageContaining("write to different datasources");
    }

    @Test
    void aDatasourceWithoutJndiNameIsCalledUnnamed() {
        Unit orders = new Unit("orders", ORDERS, "java:jboss/datasources/OrdersDS");
        Unit billing = new Unit("billing", BILLING, null);
        assertThatThrownBy(() -> CommonDatasource.of(List.of(orders, billing)))
                .hasMessageContaining("billing to an unnamed datasource, orders to java:jboss/datasources/OrdersDS");
    }

    @Test
    void aUnitWhoseConnectionsComeFromNoDatasourceLeavesTheChoiceToTheOthersOrToTheDefault() {
        // a MultiTenantConnectionProvider or a DriverManager unit: Hibernate has no ConnectionProvider datasource
        Unit plain = new Unit("plain", null, null);
        Unit orders = new Unit("orders", ORDERS, "java:jboss/datasources/OrdersDS");
        assertThat(CommonDatasource.of(List.of(plain))).isEmpty();
        assertThat(CommonDatasource.of(List.of(plain, orders))).contains(orders);
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
