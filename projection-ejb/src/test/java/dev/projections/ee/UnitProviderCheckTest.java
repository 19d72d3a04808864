package dev.projections.ee;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnitProviderCheckTest {

    private static final String PAYARA_DEFAULT = UnitProviderCheck.ECLIPSELINK;

    private static List<UnitProviderCheck.Unit> parse(String xml) throws Exception {
        return UnitProviderCheck.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "test.xml");
    }

    @Test
    void readsEachUnitWithItsProvider() throws Exception {
        List<UnitProviderCheck.Unit> units = parse("""
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="orders" transaction-type="JTA">
                    <provider>
                      org.hibernate.jpa.HibernatePersistenceProvider
                    </provider>
                  </persistence-unit>
                  <persistence-unit name="reports"/>
                </persistence>
                """);
        assertThat(units).containsExactly(
                new UnitProviderCheck.Unit("orders", "org.hibernate.jpa.HibernatePersistenceProvider", "test.xml"),
                new UnitProviderCheck.Unit("reports", null, "test.xml"));
    }

    @Test
    void hibernateUnitsPassEverywhere() {
        var unit = new UnitProviderCheck.Unit("orders", "org.hibernate.jpa.HibernatePersistenceProvider", "x");
        assertThat(UnitProviderCheck.problem(unit, null)).isNull();
        assertThat(UnitProviderCheck.problem(unit, PAYARA_DEFAULT)).isNull();
    }

    @Test
    void aUnitWithoutProviderPassesWhereTheDefaultIsHibernateOrUnknown() {
        var unit = new UnitProviderCheck.Unit("orders", null, "x");
        assertThat(UnitProviderCheck.problem(unit, null)).isNull();
        assertThat(UnitProviderCheck.problem(unit, "org.hibernate.jpa.HibernatePersistenceProvider")).isNull();
    }

    @Test
    void aUnitWithoutProviderOrCustomizerFailsWhereTheDefaultIsEclipseLink() {
        var unit = new UnitProviderCheck.Unit("orders", null, "jar:demo.jar!/META-INF/persistence.xml");
        assertThat(UnitProviderCheck.problem(unit, PAYARA_DEFAULT))
                .contains("persistence unit orders (jar:demo.jar!/META-INF/persistence.xml)")
                .contains("names no provider, so it runs on this server's default, " + PAYARA_DEFAULT)
                .contains("<property name=\"eclipselink.session.customizer\" "
                        + "value=\"dev.projections.eclipselink.ProjectionSessionCustomizer\"/>");
    }

    @Test
    void anEclipseLinkUnitWithASessionCustomizerPasses() throws Exception {
        List<UnitProviderCheck.Unit> units = parse("""
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="orders">
                    <properties>
                      <property name="eclipselink.logging.level" value="INFO"/>
                      <property name="eclipselink.session.customizer"
                                value="dev.projections.eclipselink.ProjectionSessionCustomizer"/>
                    </properties>
                  </persistence-unit>
                </persistence>
                """);
        assertThat(units).containsExactly(new UnitProviderCheck.Unit("orders", null,
                "dev.projections.eclipselink.ProjectionSessionCustomizer", "test.xml"));
        assertThat(UnitProviderCheck.problem(units.get(0), PAYARA_DEFAULT)).isNull();
        assertThat(UnitProviderCheck.problem(new UnitProviderCheck.Unit("orders", PAYARA_DEFAULT,
                "dev.projections.eclipselink.ProjectionSessionCustomizer", "x"), null)).isNull();
    }

    @Test
    void anEclipseLinkUnitConfiguredByASessionsXmlPasses() throws Exception {
        List<UnitProviderCheck.Unit> units = parse("""
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="orders">
                    <properties>
                      <property name="eclipselink.sessions-xml" value="META-INF/orders-sessions.xml"/>
                    </properties>
                  </persistence-unit>
                </persistence>
                """);
        assertThat(UnitProviderCheck.problem(units.get(0), PAYARA_DEFAULT)).as("its customizer is in that file").isNull();
    }

    @Test
    void anEclipseLinkCompositeUnitFailsNamingTheUnitEvenWithTheCustomizer() throws Exception {
        List<UnitProviderCheck.Unit> units = parse("""
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="everything">
                    <provider>org.eclipse.persistence.jpa.PersistenceProvider</provider>
                    <jar-file>orders.jar</jar-file>
                    <properties>
                      <property name="eclipselink.composite-unit" value="true"/>
                      <property name="eclipselink.session.customizer"
                                value="dev.projections.eclipselink.ProjectionSessionCustomizer"/>
                    </properties>
                  </persistence-unit>
                </persistence>
                """);
        assertThat(units.get(0).composite()).isTrue();
        assertThat(UnitProviderCheck.problem(units.get(0), null))
                .startsWith("persistence unit everything (test.xml) names the provider "
                        + "org.eclipse.persistence.jpa.PersistenceProvider and is a composite unit")
                .contains("member units as units of their own");
        assertThat(UnitProviderCheck.problem(new UnitProviderCheck.Unit("everything", null, null, "x", null, true),
                null)).as("on WildFly a unit without a provider is Hibernate's, which has no composite units").isNull();
    }

    @Test
    void aUnitNamingAnotherProviderFailsEverywhere() {
        var unit = new UnitProviderCheck.Unit("reports", "org.apache.openjpa.persistence.PersistenceProviderImpl", "x");
        assertThat(UnitProviderCheck.problem(unit, null))
                .contains("names the provider org.apache.openjpa.persistence.PersistenceProviderImpl");
        var eclipseLink = new UnitProviderCheck.Unit("reports", PAYARA_DEFAULT, "x");
        assertThat(UnitProviderCheck.problem(eclipseLink, null)).contains("names the provider " + PAYARA_DEFAULT)
                .contains("names no session customizer");
    }

    @dev.projections.Projected("things")
    static class ProjectedThing {
    }

    static class PlainThing {
    }

    @dev.projections.Projected("things")
    @dev.projections.Projected("other-things")
    static class TwiceProjectedThing {
    }

    static class ProjectedByItsSuperclass extends ProjectedThing {
    }

    private static String unitListing(String exclude, String... classes) {
        StringBuilder xml = new StringBuilder("""
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="reports">
                """);
        for (String name : classes) {
            xml.append("    <class>").append(name).append("</class>\n");
        }
        xml.append(exclude).append("  </persistence-unit>\n</persistence>\n");
        return xml.toString();
    }

    @Test
    void anEclipseLinkUnitThatListsOnlyEntitiesNoneOfThemProjectedNeedsNoCustomizer() throws Exception {
        List<UnitProviderCheck.Unit> units = parse(unitListing(
                "<exclude-unlisted-classes>true</exclude-unlisted-classes>", PlainThing.class.getName()));
        assertThat(units.get(0).listedOnly()).containsExactly(PlainThing.class.getName());
        assertThat(UnitProviderCheck.problem(units.get(0), PAYARA_DEFAULT)).isNull();
    }

    @Test
    void anEclipseLinkUnitListingAProjectedEntityStillNeedsTheCustomizer() throws Exception {
        for (Class<?> projected : List.of(ProjectedThing.class, TwiceProjectedThing.class,
                ProjectedByItsSuperclass.class)) {
            var unit = parse(unitListing("<exclude-unlisted-classes/>", PlainThing.class.getName(),
                    projected.getName())).get(0);
            assertThat(UnitProviderCheck.problem(unit, PAYARA_DEFAULT)).as(projected.getSimpleName())
                    .contains("names no session customizer");
        }
    }

    @Test
    void aMappingFileBesideTheDescriptorMakesItsUnitsClassesUnknown(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        java.nio.file.Path jar = dir.resolve("reports.jar");
        try (var out = new java.util.zip.ZipOutputStream(java.nio.file.Files.newOutputStream(jar))) {
            out.putNextEntry(new java.util.zip.ZipEntry("META-INF/persistence.xml"));
            out.closeEntry();
        }
        java.net.URL descriptor = new java.net.URL("jar:" + jar.toUri() + "!/META-INF/persistence.xml");
        assertThat(UnitProviderCheck.hasDefaultMappingFile(descriptor)).as("no mapping file").isFalse();

        for (String file : List.of("orm.xml", "eclipselink-orm.xml")) {
            java.nio.file.Path other = dir.resolve(file + ".jar");
            try (var out = new java.util.zip.ZipOutputStream(java.nio.file.Files.newOutputStream(other))) {
                out.putNextEntry(new java.util.zip.ZipEntry("META-INF/persistence.xml"));
                out.closeEntry();
                out.putNextEntry(new java.util.zip.ZipEntry("META-INF/" + file));
                out.closeEntry();
            }
            assertThat(UnitProviderCheck.hasDefaultMappingFile(
                    new java.net.URL("jar:" + other.toUri() + "!/META-INF/persistence.xml"))).as(file).isTrue();
        }
    }

    @Test
    void anEclipseLinkUnitWhoseEntitiesAreNotAllKnownStillNeedsTheCustomizer() throws Exception {
        String plain = PlainThing.class.getName();
        for (String xml : List.of(
                unitListing("", plain),
                unitListing("<exclude-unlisted-classes>false</exclude-unlisted-classes>", plain),
                unitListing("<mapping-file>META-INF/reports.xml</mapping-file>"
                        + "<exclude-unlisted-classes>true</exclude-unlisted-classes>", plain),
                unitListing("<exclude-unlisted-classes>1</exclude-unlisted-classes>", plain),
                unitListing("<exclude-unlisted-classes>true</exclude-unlisted-classes><properties><property"
                        + " name=\"eclipselink.metadata-source\" value=\"XML\"/></properties>", plain),
                unitListing("<exclude-unlisted-classes>true</exclude-unlisted-classes>", "org.example.NoSuchEntity"))) {
            var unit = parse(xml).get(0);
            assertThat(UnitProviderCheck.problem(unit, PAYARA_DEFAULT)).as(xml).contains("names no session customizer")
                    .contains("lists them all");
        }
    }
}
