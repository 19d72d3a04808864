package dev.projections.eclipselink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.marking.MarkSinks;
import dev.projections.marking.ProjectedUnits;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The tenant of a mark on EclipseLink (docs/guide/eclipselink.md "Running on EclipseLink"): the persistence context's value of a tenant
 * context property the unit's {@code @Multitenant} entities declare — {@code eclipselink.tenant-id} first, then the
 * others by name — else the application's {@code TenantResolver}. On H2: what is tested is EclipseLink's side, not SQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EclipseLinkTenantsTest {

    private final RecordingSink sink = new RecordingSink();
    private MarkingDatabase h2;
    private EntityManagerFactory factory;

    @BeforeAll
    void prepare() throws Exception {
        MarkSinks.install(sink);
        h2 = MarkingDatabase.h2("tenants_eclipselink");
        factory = Persistence.createEntityManagerFactory("tenants-eclipselink", h2.unitProperties());
    }

    @AfterAll
    void close() {
        factory.close();
        MarkSinks.install(null);
    }

    @BeforeEach
    void empty() throws Exception {
        try (Connection connection = h2.connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
        sink.clear();
        sink.tenant = "";
    }

    @Test
    void aMarkCarriesThePersistenceContextsEclipseLinkTenant() throws Exception {
        inTransaction(Map.of("eclipselink.tenant-id", "acme"), em -> em.persist(new TenantNote(1, "hello")));

        assertThat(MarkingContract.pending(h2)).containsExactly(new MarkKey("tenant-notes", "acme", "1"));
        assertThat(ProjectedUnits.multiTenant()).as("a unit with @Multitenant entities").isTrue();
    }

    @Test
    void aMarkCarriesTheTenantOfTheContextPropertyAnEntityDeclares() throws Exception {
        sink.tenant = "from-the-resolver";

        inTransaction(Map.of(ShopNote.SHOP, "north-shop"), em -> em.persist(new ShopNote(2, "hello")));

        assertThat(MarkingContract.pending(h2)).containsExactly(new MarkKey("shop-notes", "north-shop", "2"));
    }

    @Test
    void theDefaultTenantPropertyComesBeforeTheOthers() throws Exception {
        // one tenant per transaction's marks: where the properties differ, eclipselink.tenant-id's (docs/guide/eclipselink.md)
        inTransaction(Map.of("eclipselink.tenant-id", "acme", ShopNote.SHOP, "north-shop"), em -> {
            em.persist(new TenantNote(3, "hello"));
            em.persist(new ShopNote(3, "hello"));
        });

        assertThat(MarkingContract.pending(h2)).containsExactly(new MarkKey("shop-notes", "acme", "3"),
                new MarkKey("tenant-notes", "acme", "3"));
    }

    private void inTransaction(Map<String, Object> properties, Consumer<EntityManager> work) {
        MarkingContract.inTransaction(factory, properties, work);
    }
}
