package dev.projections.payara;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The shelf application (org.example.shelf, compiled in this module: an entity, a read model, a projection in portable
 * JPQL, container-managed JTA transactions behind JAX-RS), whose unit runs on the server's own EclipseLink with
 * projection-eclipselink's session customizer, in the engine's part of the built EAR for Payara: with
 * projection-eclipselink in lib/ and neither Hibernate ORM nor projection-hibernate, so the engine needs no JPA
 * provider of its own. Beside its unit, a second one for reports that needs no customizer: it lists its only entity,
 * which is not {@code @Projected}.
 */
final class ShelfApplication {

    private ShelfApplication() {
    }

    /** The shelf EAR, written beside {@code serverEar}. */
    static Path ear(Path serverEar, Path eclipseLinkMarking) throws Exception {
        Path shelfEar = serverEar.toAbsolutePath().getParent().resolve("shelf-eclipselink.ear");
        Path classes = Path.of("target/test-classes");
        Map<String, byte[]> added = new LinkedHashMap<>();
        added.put("lib/projection-eclipselink.jar", Files.readAllBytes(eclipseLinkMarking));
        added.put("shelf.jar", EarFiles.jar(classes, "org/example/shelf/", "", Map.of(
                "META-INF/beans.xml", "<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\" "
                        + "bean-discovery-mode=\"annotated\"/>",
                "META-INF/persistence.xml", """
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="shelf" transaction-type="JTA">
                    <class>org.example.shelf.Item</class>
                    <class>org.example.shelf.ShelfCount</class>
                    <exclude-unlisted-classes>true</exclude-unlisted-classes>
                    <properties>
                      <property name="eclipselink.session.customizer"
                                value="dev.projections.eclipselink.ProjectionSessionCustomizer"/>
                      <property name="eclipselink.ddl-generation" value="create-or-extend-tables"/>
                    </properties>
                  </persistence-unit>
                  <!-- a second unit on EclipseLink without the customizer: it lists all its entities and none is
                       @Projected, so the engine accepts it (UnitProviderCheck) -->
                  <persistence-unit name="shelf-reports" transaction-type="JTA">
                    <class>org.example.shelf.ShelfCount</class>
                    <exclude-unlisted-classes>true</exclude-unlisted-classes>
                  </persistence-unit>
                </persistence>
                """)));
        added.put("shelf.war", EarFiles.jar(classes, "org/example/shelf/web/", "WEB-INF/classes/", Map.of()));
        EarFiles.rewrite(serverEar, shelfEar, Set.of("demo.jar", "demo-web.war", "projection-web-console.war"),
                library -> library.contains("hibernate") || library.contains("projection-payara"), added,
                "<module><ejb>shelf.jar</ejb></module><module><web><web-uri>shelf.war</web-uri>"
                        + "<context-root>/shelf</context-root></web></module>");
        return shelfEar;
    }

    /**
     * Inserts, a move, a rollback after a flush, {@code markDirty} beside an entity change and beside an entity only
     * read, each seen in the read model or the pending table; a read model refused at the commit keeps its mark. The server must sweep seldom (minutes): a read model that arrives was handed over
     * after the commit.
     */
    static void checkMarking(Http http, Database db) throws Exception {
        assertThat(http.postJson("/shelf/api/items/1?shelf=a", "").statusCode()).isEqualTo(204);
        assertThat(http.postJson("/shelf/api/items/2?shelf=a", "").statusCode()).isEqualTo(204);
        Awaits.body(http, "/shelf/api/items/counts/a", "2"::equals);

        // a move marks the shelf it left and the one it reached
        assertThat(http.putJson("/shelf/api/items/2?shelf=b", "").statusCode()).isEqualTo(204);
        Awaits.body(http, "/shelf/api/items/counts/b", "1"::equals);
        Awaits.body(http, "/shelf/api/items/counts/a", "1"::equals);
        db.awaitNoMarks();

        // a rollback after a flush: nothing marked, nothing refreshed
        assertThat(http.postJson("/shelf/api/items/3/failing?shelf=c", "").statusCode()).isEqualTo(409);
        assertThat(db.count("SELECT count(*) FROM projection_pending WHERE projection = 'shelf-counts'"))
                .as("marks of a rolled-back transaction").isZero();

        // markDirty and an entity change in one transaction: both keys refreshed after its commit
        db.execute("INSERT INTO shelf_item (id, shelf, name) VALUES (9, 'd', 'behind JPA')");
        assertThat(http.postJson("/shelf/api/items/4/marking?shelf=e&mark=d", "").statusCode()).isEqualTo(204);
        Awaits.body(http, "/shelf/api/items/counts/e", "1"::equals);
        Awaits.body(http, "/shelf/api/items/counts/d", "1"::equals);
        db.awaitNoMarks();
        assertThat(http.get("/shelf/api/items/counts/c").statusCode()).as("the rolled-back shelf").isEqualTo(404);

        // markDirty, then an entity only read: the persistence context took the mark over and wrote nothing else
        db.execute("INSERT INTO shelf_item (id, shelf, name) VALUES (10, 'f', 'behind JPA')");
        assertThat(http.postJson("/shelf/api/items/1/reading?mark=f", "").statusCode()).isEqualTo(204);
        Awaits.body(http, "/shelf/api/items/counts/f", "1"::equals);
        db.awaitNoMarks();

        // a read model refused at the commit (a check the test adds to it): the refresh's ack rolls back with it, so
        // the mark stays, its failure recorded, and is refreshed once the read model takes the row (on these servers
        // the ack once committed on its own before the read model: docs/pitfalls.md #127)
        db.execute("ALTER TABLE shelf_count ADD CONSTRAINT shelf_count_refused CHECK (shelf <> 'refused')");
        assertThat(http.postJson("/shelf/api/items/20?shelf=refused", "").statusCode()).isEqualTo(204);
        Awaits.until(() -> db.count("SELECT count(*) FROM projection_pending WHERE projection = 'shelf-counts' "
                + "AND entity_id = 'refused' AND last_error IS NOT NULL"), failed -> failed == 1, Duration.ofSeconds(60));
        db.execute("ALTER TABLE shelf_count DROP CONSTRAINT shelf_count_refused");
        // due now rather than after its backoff, which only the (seldom) sweep would find: the next commit of the
        // shelf hands the key over
        db.execute("UPDATE projection_pending SET available_at = now() WHERE projection = 'shelf-counts' "
                + "AND entity_id = 'refused'");
        assertThat(http.postJson("/shelf/api/items/21?shelf=refused", "").statusCode()).isEqualTo(204);
        Awaits.body(http, "/shelf/api/items/counts/refused", "2"::equals);
        db.awaitNoMarks();
    }
}
