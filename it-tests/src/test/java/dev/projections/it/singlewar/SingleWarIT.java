package dev.projections.it.singlewar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.Rows;
import jakarta.annotation.Resource;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;
import java.io.File;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A single-WAR application (EJB-lite): the library's jars in WEB-INF/lib, the application's entity and projection
 * in WEB-INF/classes. The engine sees the projection (the placement check refuses only a WAR the engine is not in),
 * marks at commit, and refreshes after it.
 */
@ExtendWith(ArquillianExtension.class)
class SingleWarIT {

    @Deployment
    static WebArchive deployment() {
        File built = new File(System.getProperty("projection.ear", "../projection-ear/target/projection-ear.ear"));
        EnterpriseArchive ear = ShrinkWrap.createFromZipFile(EnterpriseArchive.class, built);
        WebArchive war = ShrinkWrap.create(WebArchive.class, "single-war-shop.war")
                .addClasses(SingleWarIT.class, Gadget.class, GadgetNames.class, Await.class, Rows.class)
                .addAsResource(new StringAsset("""
                        <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                          <persistence-unit name="single-war" transaction-type="JTA">
                            <jta-data-source>java:jboss/datasources/ProjectionDS</jta-data-source>
                            <class>dev.projections.it.singlewar.Gadget</class>
                            <exclude-unlisted-classes>true</exclude-unlisted-classes>
                            <properties>
                              <property name="hibernate.hbm2ddl.auto" value="update"/>
                            </properties>
                          </persistence-unit>
                        </persistence>"""), "META-INF/persistence.xml")
                .addAsResource(new StringAsset("projection.sweep-interval=1h\n"), "META-INF/projection.properties");
        // the library as the EAR carries it: its lib/ jars and the engine's ejb-jar, all in WEB-INF/lib
        ear.getContent(path -> path.get().startsWith("/lib/")).values().forEach(node ->
                war.addAsLibrary(ear.getAsType(JavaArchive.class, node.getPath().get())));
        war.addAsLibrary(ear.getAsType(JavaArchive.class, "projection-ejb.jar"));
        war.addAsLibrary(ShrinkWrap.createFromZipFile(JavaArchive.class,
                new File(org.assertj.core.api.Assertions.class.getProtectionDomain().getCodeSource().getLocation().getPath())));
        return war;
    }

    @PersistenceContext(unitName = "single-war")
    EntityManager em;

    @Resource
    UserTransaction transaction;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @BeforeEach
    void readModelTable() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS single_war_gadget_name (id BIGINT PRIMARY KEY, name VARCHAR(200))");
        }
    }

    @Test
    void aProjectionInTheEnginesWarIsRefreshedAfterEachCommit() throws Exception {
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        transaction.begin();
        em.persist(new Gadget(id, "sprocket"));
        transaction.commit();
        Rows rows = new Rows(dataSource);
        Await.until("the read model of gadget " + id, () -> rows.exists(
                "SELECT 1 FROM single_war_gadget_name WHERE id = ? AND name = 'SPROCKET'", id));

        transaction.begin();
        em.find(Gadget.class, id).rename("flange");
        transaction.commit();
        Await.until("the read model of gadget " + id + " after the change", () -> rows.exists(
                "SELECT 1 FROM single_war_gadget_name WHERE id = ? AND name = 'FLANGE'", id));
        assertThat(rows.exists("SELECT 1 FROM projection_pending WHERE projection = ? AND entity_id = ?",
                GadgetNames.NAME, String.valueOf(id))).isFalse();
    }
}
