package dev.projections.it.deployment;

import static dev.projections.it.support.TestSql.count;
import static dev.projections.it.support.TestSql.execute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The demo deployed with {@code projection.table-schema} and Liquibase table names of its own: the migration creates
 * the product's tables in that schema (on MariaDB: database), the demo's order is marked at commit on the persistence
 * unit's connection, claimed, refreshed and acked there, while the demo's own tables stay where the datasource's
 * connections put them.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class TableSchemaIT {

    private static final String OWN = "projections_it_own";
    private static final String API = "http://127.0.0.1:8080/demo/api";
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "own-table-schema", managed = false, testable = false)
    static EnterpriseArchive ownTableSchema() {
        return ShrinkWrap.create(EnterpriseArchive.class, "own-table-schema.ear").merge(Deployments.ear(Map.of(
                "projection.table-schema", OWN,
                "projection.liquibase.changelog-table", "projections_it_changelog",
                "projection.liquibase.lock-table", "projections_it_changelog_lock")));
    }

    @Deployment(name = "missing-table-schema", managed = false, testable = false)
    static EnterpriseArchive missingTableSchema() {
        return ShrinkWrap.create(EnterpriseArchive.class, "missing-table-schema.ear").merge(Deployments.ear(Map.of(
                "projection.table-schema", "projections_it_missing")));
    }

    @Test
    void theDemoRefreshesThroughTablesInASchemaOfTheirOwn() throws Exception {
        boolean mariadb = mariaDb();
        execute(mariadb ? "DROP DATABASE IF EXISTS " + OWN : "DROP SCHEMA IF EXISTS " + OWN + " CASCADE");
        execute(mariadb ? "CREATE DATABASE " + OWN : "CREATE SCHEMA " + OWN);
        deployer.deploy("own-table-schema");
        try {
            assertThat(count("SELECT COUNT(*) FROM " + OWN + ".projections_it_changelog"))
                    .as("change sets recorded in " + OWN + ".projections_it_changelog").isPositive();

            // earlier tests may have left marks in the default schema's table: what counts is that none is added
            long leftInDefault = hasDefaultSchemaTable("projection_pending")
                    ? count("SELECT COUNT(*) FROM projection_pending") : 0;
            String customer = "own-schema-" + UUID.randomUUID();
            HttpResponse<String> created = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create(API + "/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"" + customer
                            + "\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":5}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            Matcher id = ID.matcher(created.body());
            assertThat(id.find()).isTrue();
            long order = Long.parseLong(id.group(1));

            // the read model is in the application's schema; the marks that got it refreshed were in ours only
            Await.until("order " + order + " refreshed into order_search",
                    () -> count("SELECT COUNT(*) FROM order_search WHERE order_id = ?", order) == 1);
            Await.until("customer_stats of " + customer + " refreshed",
                    () -> count("SELECT COUNT(*) FROM customer_stats WHERE customer_name = ?", customer) == 1);
            Await.until("the sweep reports this instance in " + OWN + ".projection_node",
                    () -> count("SELECT COUNT(*) FROM " + OWN + ".projection_node") > 0);
            assertThat(count("SELECT COUNT(*) FROM " + OWN + ".projection_instance WHERE projection = 'order-search'"))
                    .isPositive();
            assertThat(count("SELECT COUNT(*) FROM " + OWN + ".projection_pending WHERE entity_id = ?",
                    String.valueOf(order))).as("the order's mark acked").isZero();
            if (hasDefaultSchemaTable("projection_pending")) {
                assertThat(count("SELECT COUNT(*) FROM projection_pending"))
                        .as("no mark added to the default schema's projection_pending").isEqualTo(leftInDefault);
            }
        } finally {
            deployer.undeploy("own-table-schema");
        }
    }

    @Test
    void aTableSchemaTheDatabaseLacksFailsTheDeploymentNamingKeyAndSchema() {
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> deployer.deploy("missing-table-schema"))
                    .hasStackTraceContaining("projection.table-schema=projections_it_missing")
                    .hasStackTraceContaining("projections_it_missing (create it first");
        } finally {
            try {
                deployer.undeploy("missing-table-schema");
            } catch (RuntimeException alreadyGone) {
                // a failed deployment is usually rolled back by the server already
            }
        }
    }

    private static boolean mariaDb() throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            return !"PostgreSQL".equals(connection.getMetaData().getDatabaseProductName());
        }
    }

    private static boolean hasDefaultSchemaTable(String table) throws Exception {
        try (Connection connection = TestDatabase.get().connect();
             ResultSet tables = connection.getMetaData().getTables(connection.getCatalog(), connection.getSchema(),
                     table, null)) {
            return tables.next();
        }
    }
}
