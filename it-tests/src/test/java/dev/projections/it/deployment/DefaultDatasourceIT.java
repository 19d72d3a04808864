package dev.projections.it.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Management;
import dev.projections.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Without {@code projection.datasource} the engine takes the datasource of the persistence unit with
 * {@code @Projected} entities (docs/contract.md §10, docs/design.md D35): the demo, its unit and its schema moved to a
 * datasource of the test's own on a PostgreSQL database of its own, marks and refreshes go through that datasource.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DefaultDatasourceIT {

    private static final String ORDERS_DS = "java:jboss/datasources/OrdersDS";
    private static final String API = "http://127.0.0.1:8080/demo/api";
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");

    @ArquillianResource
    Deployer deployer;

    /** The demo with its unit and its schema on OrdersDS; no projection.datasource. */
    @Deployment(name = "demo-on-orders-ds", managed = false, testable = false)
    static EnterpriseArchive demoOnOrdersDs() {
        EnterpriseArchive ear = Deployments.ear(Map.of());
        JavaArchive demo = ear.getAsType(JavaArchive.class, "demo.jar");
        demo.delete("META-INF/persistence.xml");
        demo.addAsManifestResource(new StringAsset("""
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="demo" transaction-type="JTA">
                    <provider>org.hibernate.jpa.HibernatePersistenceProvider</provider>
                    <jta-data-source>%s</jta-data-source>
                    <exclude-unlisted-classes>false</exclude-unlisted-classes>
                    <properties><property name="hibernate.hbm2ddl.auto" value="none"/></properties>
                  </persistence-unit>
                </persistence>""".formatted(ORDERS_DS)), "persistence.xml");
        // the demo's own Liquibase migration follows its unit: the descriptor overrides @Resource(lookup)
        demo.addAsManifestResource(new StringAsset("""
                <ejb-jar xmlns="https://jakarta.ee/xml/ns/jakartaee" version="4.0">
                  <enterprise-beans>
                    <session>
                      <ejb-name>DemoSchema</ejb-name>
                      <resource-ref>
                        <res-ref-name>dev.projections.demo.orders.control.DemoSchema/dataSource</res-ref-name>
                        <res-type>javax.sql.DataSource</res-type>
                        <lookup-name>%s</lookup-name>
                        <injection-target>
                          <injection-target-class>dev.projections.demo.orders.control.DemoSchema</injection-target-class>
                          <injection-target-name>dataSource</injection-target-name>
                        </injection-target>
                      </resource-ref>
                    </session>
                  </enterprise-beans>
                </ejb-jar>""".formatted(ORDERS_DS)), "ejb-jar.xml");
        ear.delete("demo.jar");
        ear.addAsModule(demo);
        return ear;
    }

    @Test
    void withoutTheSettingMarksAreWrittenAndRefreshedThroughTheProjectedUnitsDatasource() throws Exception {
        TestDatabase main = TestDatabase.get();
        assumeTrue(main.jdbcUrl().startsWith("jdbc:postgresql:"), "a PostgreSQL database of the test's own");
        String ordersUrl = otherDatabase(main.jdbcUrl(), "orders_ds");
        ModelNode address = Operations.createAddress("subsystem", "datasources", "data-source", "OrdersDS");
        ModelNode add = Operations.createAddOperation(address);
        add.get("jndi-name").set(ORDERS_DS);
        add.get("driver-name").set("projection");
        add.get("connection-url").set(ordersUrl);
        add.get("user-name").set(main.user());
        if (!main.password().isEmpty()) { // WildFly refuses an empty one (docs/pitfalls.md #17)
            add.get("password").set(main.password());
        }
        Management.execute(add);
        try {
            deployer.deploy("demo-on-orders-ds");
            try {
                String customer = "orders-ds-" + UUID.randomUUID();
                HttpResponse<String> created = post("/orders", "{\"customer\":\"" + customer
                        + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":5}]}");
                assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
                long id = idOf(created.body());
                Await.until("order " + id + " refreshed into OrdersDS's database",
                        () -> count(ordersUrl, "SELECT COUNT(*) FROM order_search WHERE order_id = " + id) == 1);
                Await.until("its mark acked in OrdersDS's database",
                        () -> count(ordersUrl, "SELECT COUNT(*) FROM projection_pending") == 0);
                // the first sweep beats a second after the start: the refresh may well come before it
                Await.until("the engine's heartbeat in OrdersDS's database",
                        () -> count(ordersUrl, "SELECT COUNT(*) FROM projection_instance") > 0);
                // -1: not even the table, since the class starts from an emptied database and only OrdersDS's
                // deployment ran
                assertThat(count(main.jdbcUrl(), "SELECT COUNT(*) FROM customer_stats WHERE customer_name = '"
                        + customer + "'")).as("nothing in ProjectionDS's database").isIn(-1L, 0L);
            } finally {
                deployer.undeploy("demo-on-orders-ds");
            }
        } finally {
            Management.execute(Operations.createRemoveOperation(address));
        }
    }

    /** A fresh database {@code name} beside the test database, on the same server. */
    private static String otherDatabase(String url, String name) throws SQLException {
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            statement.execute("CREATE DATABASE " + name);
        }
        Matcher database = Pattern.compile("^(jdbc:postgresql://[^/]+/)[^?]*(.*)$").matcher(url);
        assertThat(database.matches()).as(url).isTrue();
        return database.group(1) + name + database.group(2);
    }

    private static long count(String url, String sql) {
        TestDatabase main = TestDatabase.get();
        try (Connection connection = DriverManager.getConnection(url, main.user(), main.password());
             PreparedStatement statement = connection.prepareStatement(sql); ResultSet rs = statement.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            return -1; // a table not created yet
        }
    }

    private static HttpResponse<String> post(String path, String json) throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create(API + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long idOf(String body) {
        Matcher id = ID.matcher(body);
        assertThat(id.find()).as(body).isTrue();
        return Long.parseLong(id.group(1));
    }
}
