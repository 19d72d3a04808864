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
        WebArchive war = SingleWarShop.war("single-war-shop").addClasses(SingleWarIT.class, Await.class, Rows.class);
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
