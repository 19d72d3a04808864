package dev.projections.payara;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * it-tests' two applications of their own, built here for EclipseLink ({@code -Declipselink}: the BOM and
 * projections-eclipselink-starter or projections-eclipselink-war-starter, no Hibernate), checked as on the stock
 * WildFly: a change reaches the read model (waited for through the test support, as an adopter's test would), the
 * console answers its operators, health and metrics are served.
 */
final class OwnApplications {

    private OwnApplications() {
    }

    /**
     * library-app (an EAR: ejb-jar, WAR, the console): a book added and retitled, its title line refreshed; the console
     * logs its admin and its viewer in; {@code sameSiteCookie}: whether the server sends the session cookie's SameSite.
     */
    static void checkLibrary(Http http, Database db, String adminPassword, String viewerPassword,
            boolean sameSiteCookie) throws Exception {
        HttpResponse<String> added = http.form("POST", "/library/api/books", "title=Dune&author=Frank+Herbert");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        String id = added.body();
        idle(http, "/projections/test/idle?projection=book-titles&timeout=30s");
        assertThat(http.get("/library/api/books/" + id + "/title").body()).isEqualTo("Dune — Frank Herbert");

        assertThat(http.form("PUT", "/library/api/books/" + id, "title=Dune+Messiah").statusCode()).isEqualTo(200);
        idle(http, "/projections/test/idle?timeout=30s");
        assertThat(http.get("/library/api/books/" + id + "/title").body()).isEqualTo("Dune Messiah — Frank Herbert");
        assertThat(db.count("SELECT count(*) FROM projection_pending WHERE projection = 'book-titles'"
                + " AND entity_id = '" + id + "'")).isZero();

        String overview = new Http(http.port()).login("alice", adminPassword).body();
        assertThat(overview).contains("book-titles", "Rebuild…", "Log out");
        String viewer = new Http(http.port()).login("bob", viewerPassword).body();
        assertThat(viewer).contains("book-titles", "Log out").doesNotContain("Rebuild…");
        assertThat(new Http(http.port()).login("alice", "wrong-password").body()).contains("Wrong user or password");
        // SameSite=Strict from the console WAR's payara-web.xml; GlassFish 7 sends no SameSite attribute (it reads no
        // payara-web.xml and drops the one Servlet 6's cookie-config declares): docs/guide/payara-glassfish.md "What differs from WildFly"
        String cookie = new Http(http.port()).get("/projections/").headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith("JSESSIONID=")).findFirst().orElseThrow();
        assertThat(cookie).as("the console's session cookie").contains("HttpOnly");
        if (sameSiteCookie) {
            assertThat(cookie).as("the console's session cookie").containsIgnoringCase("SameSite=Strict");
        } else {
            assertThat(cookie).as("the console's session cookie on GlassFish").doesNotContainIgnoringCase("SameSite");
        }

        health(http, "/projections");
    }

    /**
     * notes-war (a single WAR): a note added, its line refreshed; the console, health and metrics under the WAR's
     * context.
     */
    static void checkNotes(Http http, String adminPassword) throws Exception {
        HttpResponse<String> added = http.form("POST", "/notes/api/notes", "text=buy+milk");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        String id = added.body();
        idle(http, "/notes/projections/test/idle?projection=note-lines&timeout=30s");
        assertThat(http.get("/notes/api/notes/" + id + "/line").body()).isEqualTo("#" + id + ": buy milk");
        assertThat(new Http(http.port()).login("/notes/projections", "alice", adminPassword).body())
                .contains("note-lines", "Rebuild…", "Log out");
        health(http, "/notes/projections");
    }

    /**
     * What {@code archive} (an EAR or a WAR built with -Declipselink) holds of ours and of Hibernate: projection-eclipselink,
     * and nothing whose name says Hibernate (neither Hibernate ORM nor projection-hibernate).
     */
    static void requireEclipseLinkOnly(Path archive) throws Exception {
        List<String> entries = new ArrayList<>();
        try (ZipFile zip = new ZipFile(archive.toFile())) {
            zip.stream().map(ZipEntry::getName).forEach(entries::add);
        }
        assertThat(entries).as(archive.getFileName() + ": our EclipseLink integration")
                .anyMatch(name -> name.contains("projection-eclipselink"));
        assertThat(entries).as(archive.getFileName() + ": no Hibernate")
                .noneMatch(name -> name.toLowerCase(Locale.ROOT).contains("hibernate"));
    }

    private static void idle(Http http, String path) throws Exception {
        HttpResponse<String> idle = http.form("POST", path, "");
        assertThat(idle.statusCode()).as(path + ": " + idle.body()).isEqualTo(200);
    }

    private static void health(Http http, String base) throws Exception {
        HttpResponse<String> health = http.get(base + "/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"");
        Awaits.body(http, base + "/metrics", body -> body.contains("projection_refresh_seconds_count"));
    }
}
