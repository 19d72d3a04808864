package dev.projections.it.singlewar;

import java.io.File;
import org.jboss.shrinkwrap.api.Node;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * A single-WAR application (EJB-lite) as a user builds one: its entity, persistence unit and projection in the WAR,
 * the library's jars in WEB-INF/lib — taken from the EAR the build made, as the EAR carries them.
 */
final class SingleWarShop {

    private SingleWarShop() {
    }

    /** A WAR named {@code name}: each test class deploys its own (one name undeployed and deployed again at once can
     * find its content closed). */
    static WebArchive war(String name) {
        EnterpriseArchive ear = builtEar();
        WebArchive war = ShrinkWrap.create(WebArchive.class, name + ".war")
                .addClasses(Gadget.class, GadgetNames.class)
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
        ear.getContent(path -> path.get().startsWith("/lib/")).values().forEach(node -> addLibrary(war, node));
        addLibrary(war, ear.get("projection-ejb.jar"));
        return war;
    }

    /**
     * The console, /projections/health and /projections/metrics as web fragments (projection-console and
     * projection-endpoints, from the console WAR's WEB-INF/lib) and the application's security domain.
     */
    static WebArchive withConsole(WebArchive war) {
        WebArchive console = builtEar().getAsType(WebArchive.class, "projection-web-console.war");
        console.getContent(path -> path.get().startsWith("/WEB-INF/lib/")).values()
                .forEach(node -> addLibrary(war, node));
        return war.addAsWebInfResource(new StringAsset("""
                <jboss-web xmlns="urn:jboss:jakartaee:1.0" version="15.0">
                  <security-domain>projections</security-domain>
                </jboss-web>"""), "jboss-web.xml");
    }

    /** The jar at WEB-INF/lib/ under its own file name (addAsLibrary would keep the path it had in its archive). */
    private static void addLibrary(WebArchive war, Node jar) {
        String path = jar.getPath().get();
        war.add(jar.getAsset(), "WEB-INF/lib/" + path.substring(path.lastIndexOf('/') + 1));
    }

    private static EnterpriseArchive builtEar() {
        File built = new File(System.getProperty("projection.ear", "../projection-ear/target/projection-ear.ear"));
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, built);
    }

}
