package dev.projections.it.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.Projection;
import dev.projections.Projections;
import dev.projections.RebuildScope;
import dev.projections.Verifiable;
import dev.projections.demo.tenancy.DemoTenancy;
import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Series;
import jakarta.annotation.Resource;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The demo's two projections implement {@link Verifiable} (issue 51, the SPI a verification run will call): after
 * their read models were rebuilt exact, damage done behind the engine's back — a row changed, a row deleted, a row
 * added for a source that does not exist, a source changed without a mark — is reported key for key, nothing else,
 * and only in the tenant it was done in.
 */
@ExtendWith(ArquillianExtension.class)
class DriftCheckIT {

    private static final long FIRST = 830_000_000L;
    private static final String TENANT = "drift";

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.sweep-interval", "1s"), List.of(Series.class), DriftCheckIT.class);
    }

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Projections projections;

    @Inject
    @Any
    Instance<Projection> all;

    @Resource
    UserTransaction transaction;

    @Test
    void theDemosProjectionsReportExactlyTheKeysDamagedBehindTheEnginesBack() throws Exception {
        // three customers; ten orders, of customer FIRST + g % 3, each with one line of 2 × 10.00
        execute("INSERT INTO customer (id, tenant_id, name) SELECT %d + g, '%s', CONCAT('c', g) FROM %s"
                .formatted(FIRST, TENANT, Series.upTo(2)));
        execute("INSERT INTO orders (id, tenant_id, customer_id, status, version) SELECT %d + g, '%s', %d + MOD(g, 3), 'NEW', 0 FROM %s"
                .formatted(FIRST, TENANT, FIRST, Series.upTo(9)));
        execute("INSERT INTO order_line (id, order_id, sku, quantity, price) SELECT %d + g, %d + g, 'a', 2, 10.00 FROM %s"
                .formatted(FIRST, FIRST, Series.upTo(9)));
        for (String name : List.of("order-search", "customer-stats")) {
            String run = projections.rebuild(name, TENANT, RebuildScope.everything(), 1);
            Await.until(name + "'s rebuild to finish", Duration.ofMinutes(1), () -> projections.rebuildProgress(run).finished());
        }
        assertThat(projections.awaitIdle(Duration.ofSeconds(30), "order-search", "customer-stats").idle()).isTrue();
        List<String> orders = ids(FIRST, FIRST + 9);
        List<String> customers = ids(FIRST, FIRST + 2);
        assertThat(drifted("order-search", TENANT, orders)).as("rebuilt: exact").isEmpty();
        assertThat(drifted("customer-stats", TENANT, customers)).as("rebuilt: exact").isEmpty();

        // behind the engine's back: no mark for any of these
        execute("UPDATE order_search SET total = total + 1 WHERE order_id = " + (FIRST + 1));
        execute("DELETE FROM order_search WHERE order_id = " + (FIRST + 2));
        execute("INSERT INTO order_search (order_id, tenant_id, customer_name, status, line_count, total, source_version)"
                + " VALUES (%d, '%s', 'ghost', 'NEW', 0, 0, 0)".formatted(FIRST + 100, TENANT));
        execute("UPDATE orders SET status = 'PAID' WHERE id = " + (FIRST + 3)); // a bulk update that bypassed marking
        execute("UPDATE customer_stats SET order_count = 99 WHERE customer_id = " + FIRST);
        execute("DELETE FROM customer_stats WHERE customer_id = " + (FIRST + 1));
        execute("INSERT INTO customer_stats (customer_id, tenant_id, customer_name, order_count, total_amount)"
                + " VALUES (%d, '%s', 'ghost', 0, 0)".formatted(FIRST + 100, TENANT));

        assertThat(readModelIds("order-search", TENANT)).as("the read model's own ids, the ghost's among them")
                .contains(String.valueOf(FIRST + 100)).doesNotContain(String.valueOf(FIRST + 2));
        assertThat(drifted("order-search", TENANT, union(orders, readModelIds("order-search", TENANT))))
                .containsExactlyInAnyOrder(id(FIRST + 1), id(FIRST + 2), id(FIRST + 3), id(FIRST + 100));
        assertThat(drifted("customer-stats", TENANT, union(customers, readModelIds("customer-stats", TENANT))))
                .containsExactlyInAnyOrder(id(FIRST), id(FIRST + 1), id(FIRST + 100));
        assertThat(drifted("order-search", "elsewhere", union(orders, List.of(id(FIRST + 100)))))
                .as("another tenant's check sees none of it").isEmpty();
        assertThat(drifted("customer-stats", "elsewhere", union(customers, List.of(id(FIRST + 100))))).isEmpty();
    }

    /** As the engine will call it: inside the tenant's scope, in a transaction. */
    private Set<String> drifted(String projection, String tenant, List<String> ids) throws Exception {
        return inTenant(tenant, () -> verifiable(projection).drifted(ids));
    }

    private List<String> readModelIds(String projection, String tenant) throws Exception {
        return inTenant(tenant, () -> verifiable(projection).readModelIds(null, 1000));
    }

    private <T> T inTenant(String tenant, Work<T> work) throws Exception {
        String previous = DemoTenancy.enter(tenant);
        transaction.begin();
        try {
            return work.run();
        } finally {
            transaction.rollback(); // it only reads
            DemoTenancy.restore(previous);
        }
    }

    private interface Work<T> {
        T run() throws Exception;
    }

    private Verifiable verifiable(String name) {
        return (Verifiable) all.stream().filter(projection -> projection.name().equals(name)).findFirst().orElseThrow();
    }

    private static List<String> ids(long from, long to) {
        return LongStream.rangeClosed(from, to).mapToObj(String::valueOf).toList();
    }

    private static List<String> union(List<String> a, List<String> b) {
        List<String> both = new ArrayList<>(a);
        b.stream().filter(id -> !both.contains(id)).forEach(both::add);
        return both;
    }

    private static String id(long id) {
        return String.valueOf(id);
    }

    private void execute(String sql) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
