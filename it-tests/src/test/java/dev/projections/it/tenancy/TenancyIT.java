package dev.projections.it.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.Projections;
import dev.projections.demo.orders.entity.Customer;
import dev.projections.demo.orders.entity.Order;
import dev.projections.demo.tenancy.DemoTenancy;
import dev.projections.demo.tenancy.DemoTenantResolver;
import dev.projections.engine.Foundation;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.Rows;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * docs/contract.md §8 in an application with a Hibernate multi-tenant persistence unit ({@code notes}, a {@code @TenantId}
 * discriminator and a {@code CurrentTenantIdentifierResolver}) and no {@code TenantResolver} bean: explicit marks
 * and rebuilds take their tenant from the unit's resolver, and fail rather than write {@code ''}. The demo's unit
 * runs beside it, so the same deployment shows two persistence units in one transaction.
 */
@ExtendWith(ArquillianExtension.class)
class TenancyIT {

    @Deployment
    static EnterpriseArchive deployment() {
        EnterpriseArchive ear = Deployments.ear(Map.of("projection.auto-refresh", "false"), TenancyIT.class);
        JavaArchive demo = ear.getAsType(JavaArchive.class, "demo.jar");
        demo.deleteClass(DemoTenantResolver.class);
        ear.delete("demo.jar");
        ear.addAsModule(demo);
        ear.addAsModule(ShrinkWrap.create(JavaArchive.class, "notes.jar")
                .addClasses(Note.class, NotesTenantResolver.class, NotesProjection.class)
                .addAsManifestResource(new StringAsset("<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" "
                        + "version=\"4.0\" bean-discovery-mode=\"annotated\"/>"), "beans.xml")
                .addAsManifestResource(new StringAsset("""
                        <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                          <persistence-unit name="notes" transaction-type="JTA">
                            <jta-data-source>java:jboss/datasources/ProjectionDS</jta-data-source>
                            <class>dev.projections.it.tenancy.Note</class>
                            <exclude-unlisted-classes>true</exclude-unlisted-classes>
                            <properties>
                              <property name="hibernate.hbm2ddl.auto" value="update"/>
                              <property name="hibernate.tenant_identifier_resolver"
                                        value="dev.projections.it.tenancy.NotesTenantResolver"/>
                            </properties>
                          </persistence-unit>
                        </persistence>
                        """), "persistence.xml"));
        // a module the application.xml does not list is not deployed
        String applicationXml = new String(readAll(ear.get("META-INF/application.xml").getAsset().openStream()),
                java.nio.charset.StandardCharsets.UTF_8);
        ear.setApplicationXML(new StringAsset(applicationXml.replace("<library-directory>",
                "<module><ejb>notes.jar</ejb></module>\n  <library-directory>")));
        return ear;
    }

    private static byte[] readAll(java.io.InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @PersistenceContext(unitName = "notes")
    EntityManager notes;

    @PersistenceContext(unitName = "demo")
    EntityManager orders;

    @Resource
    UserTransaction transaction;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    Projections projections;

    @Inject
    Foundation engine;

    @AfterEach
    void leaveTheTenant() {
        DemoTenancy.restore(null);
    }

    @Test
    void anExplicitMarkTakesItsTenantFromTheMultiTenantUnitsResolver() throws Exception {
        String id = "note-" + UUID.randomUUID();
        DemoTenancy.enter("acme");
        projections.markDirty(NotesProjection.NAME, id);

        assertThat(tenantsOfMark(NotesProjection.NAME, id)).containsExactly("acme");
    }

    @Test
    void anExplicitMarkOrARebuildWithNoCurrentTenantFailsAndWritesNothing() throws Exception {
        String id = "note-" + UUID.randomUUID();
        assertThatThrownBy(() -> projections.markDirty(NotesProjection.NAME, id))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("markDirty(\"" + NotesProjection.NAME + "\"")
                .hasMessageContaining("no tenant is current");
        transaction.begin();
        try {
            assertThatThrownBy(() -> projections.markDirty(NotesProjection.NAME, id))
                    .as("inside a transaction too").isInstanceOf(IllegalStateException.class);
        } finally {
            transaction.rollback();
        }
        assertThatThrownBy(() -> projections.rebuild("order-search"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("rebuild(\"order-search\")");
        assertThat(tenantsOfMark(NotesProjection.NAME, id)).isEmpty();
    }

    @Test
    void anEntityOfTheMultiTenantUnitIsMarkedInItsSessionsTenant() throws Exception {
        DemoTenancy.enter("globex");
        transaction.begin();
        Note note = new Note("hello");
        notes.persist(note);
        transaction.commit();

        assertThat(note.getTenant()).isEqualTo("globex");
        assertThat(tenantsOfMark(NotesProjection.NAME, String.valueOf(note.getId()))).containsExactly("globex");
    }

    @Test
    void twoPersistenceUnitsInOneTransactionEachWriteTheirMarksAndBothCommit() throws Exception {
        DemoTenancy.enter("acme");
        long statements = engine.stats().markStatements();
        transaction.begin();
        // the demo's unit is not multi-tenant and this deployment has no TenantResolver: its marks carry no tenant,
        // so the order has none either (its refresh, run by later classes on the shared database, must find it)
        Customer customer = new Customer("", "two-units-" + UUID.randomUUID());
        orders.persist(customer);
        Order order = new Order("", customer, "NEW");
        orders.persist(order);
        Note note = new Note("beside an order");
        notes.persist(note);
        transaction.commit();

        assertThat(tenantsOfMark("order-search", String.valueOf(order.getId())))
                .as("no tenant from the demo's unit").containsExactly("");
        assertThat(tenantsOfMark(NotesProjection.NAME, String.valueOf(note.getId()))).containsExactly("acme");
        assertThat(engine.stats().markStatements() - statements).as("one statement per unit").isEqualTo(2);
    }

    private List<String> tenantsOfMark(String projection, String id) {
        return new Rows(dataSource).all("SELECT tenant_id FROM projection_pending WHERE projection = ? AND entity_id = ?",
                projection, id).stream().map(row -> (String) row.get(0)).toList();
    }
}
