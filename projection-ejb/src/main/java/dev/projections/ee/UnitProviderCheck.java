package dev.projections.ee;

import dev.projections.marking.Declarations;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The marking is an integration of Hibernate ORM or of EclipseLink (docs/contract.md §3, §10): a persistence unit run
 * by another provider, or on EclipseLink without the marking customizer, would commit its changes unmarked, and
 * nothing would say so. At start-up this reads every {@code META-INF/persistence.xml}
 * the engine's class loaders see (the EAR's {@code lib/}, and on Payara its ejb-jars too) and fails the deployment
 * naming each unit that would go unmarked: one that names a provider other than Hibernate ORM and EclipseLink, one on
 * EclipseLink (named, or, on Payara and GlassFish, the default unless {@code com.sun.persistence.defaultProvider} says
 * otherwise) that sets no session customizer. On WildFly a unit without a provider is Hibernate's, as before.
 */
final class UnitProviderCheck {

    static final Set<String> HIBERNATE = Set.of("org.hibernate.jpa.HibernatePersistenceProvider",
            "org.hibernate.ejb.HibernatePersistence");
    /** The system property by which GlassFish and Payara choose the provider of units that name none. */
    static final String GLASSFISH_DEFAULT_PROVIDER = "com.sun.persistence.defaultProvider";
    static final String ECLIPSELINK = "org.eclipse.persistence.jpa.PersistenceProvider";

    private static final List<String> DEFAULT_MAPPING_FILES = List.of("orm.xml", "eclipselink-orm.xml");

    private static final Logger LOG = Logger.getLogger(UnitProviderCheck.class.getName());

    /** The unit property by which EclipseLink runs a session customizer, and the one that marks. */
    static final String CUSTOMIZER_PROPERTY = "eclipselink.session.customizer";
    static final String MARKING_CUSTOMIZER = "dev.projections.eclipselink.ProjectionSessionCustomizer";

    /**
     * A unit as its descriptor declares it; {@code provider} is null when it names none, {@code customizer} when it
     * sets no EclipseLink session customizer; {@code listedOnly} the classes it lists when they are all it can hold
     * ({@code exclude-unlisted-classes}, no mapping file, no other jar), else null; {@code composite} whether it is an
     * EclipseLink composite unit ({@code eclipselink.composite-unit}).
     */
    record Unit(String name, String provider, String customizer, String descriptor, List<String> listedOnly,
                boolean composite) {

        Unit(String name, String provider, String customizer, String descriptor, List<String> listedOnly) {
            this(name, provider, customizer, descriptor, listedOnly, false);
        }

        Unit(String name, String provider, String descriptor) {
            this(name, provider, null, descriptor);
        }

        Unit(String name, String provider, String customizer, String descriptor) {
            this(name, provider, customizer, descriptor, null);
        }
    }

    private UnitProviderCheck() {
    }

    static void require() {
        List<String> problems = new ArrayList<>();
        String serverDefault = serverDefaultProvider();
        for (Unit unit : units()) {
            String problem = problem(unit, serverDefault);
            if (problem != null) {
                problems.add(problem);
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("; ", problems));
        }
    }

    /**
     * The provider a unit without {@code <provider>} gets, where it is not Hibernate: GlassFish and Payara (they set
     * {@code com.sun.aas.installRoot}) use EclipseLink unless told otherwise. Null elsewhere: WildFly's is Hibernate.
     */
    static String serverDefaultProvider() {
        if (System.getProperty("com.sun.aas.installRoot") == null) {
            return null;
        }
        return System.getProperty(GLASSFISH_DEFAULT_PROVIDER, ECLIPSELINK);
    }

    /** Why {@code unit} cannot be marked, or null when it runs on Hibernate ORM (or on the server's default, unknown). */
    static String problem(Unit unit, String serverDefault) {
        String provider = unit.provider() != null ? unit.provider() : serverDefault;
        if (provider == null || HIBERNATE.contains(provider)) {
            return null;
        }
        String how = unit.provider() != null ? "names the provider " + provider
                : "names no provider, so it runs on this server's default, " + provider;
        if (ECLIPSELINK.equals(provider) && unit.composite()) {
            // its members' sessions commit under a session broker, which the marking customizer does not follow
            return "persistence unit " + unit.name() + " (" + unit.descriptor() + ") " + how + " and is a composite"
                    + " unit (eclipselink.composite-unit), whose changes the marking cannot see. Use its member units"
                    + " as units of their own, each with the marking customizer (docs/guide/eclipselink.md)";
        }
        if (ECLIPSELINK.equals(provider)) {
            String customizer = unit.customizer() != null ? unit.customizer() : System.getProperty(CUSTOMIZER_PROPERTY);
            if (customizer != null) {
                // ours, or the application's own, which calls ours (docs/guide/eclipselink.md "Running on EclipseLink")
                return null;
            }
            if (unit.listedOnly() != null && noneProjected(unit.listedOnly())) {
                // a unit of its own for reports or reference data: nothing in it could be marked
                return null;
            }
            return "persistence unit " + unit.name() + " (" + unit.descriptor() + ") " + how + " but names no session"
                    + " customizer, so its changes would never be marked. Add <property name=\"" + CUSTOMIZER_PROPERTY
                    + "\" value=\"" + MARKING_CUSTOMIZER + "\"/> to the unit and projection-eclipselink to the EAR's"
                    + " lib/ (docs/guide/eclipselink.md). A unit none of whose entities is @Projected needs"
                    + " neither when it lists them all (<class> elements and"
                    + " <exclude-unlisted-classes>true</exclude-unlisted-classes>)";
        }
        return "persistence unit " + unit.name() + " (" + unit.descriptor() + ") " + how + ": changes are marked by"
                + " the Hibernate ORM and EclipseLink integrations only, so this unit's changes would never be marked."
                + " Set <provider>org.hibernate.jpa.HibernatePersistenceProvider</provider> in the unit and bundle"
                + " Hibernate ORM in the EAR's lib/, or run it on EclipseLink (docs/guide/eclipselink.md)";
    }

    /**
     * Whether no class of {@code classes} declares a projection, as the integrations read it (repeated, or on a
     * superclass); false when one cannot be loaded (unknown).
     */
    static boolean noneProjected(List<String> classes) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (String name : classes) {
            try {
                if (!Declarations.of(Class.forName(name, false, loader)).isEmpty()) {
                    return false;
                }
            } catch (ClassNotFoundException | LinkageError unknown) {
                return false;
            }
        }
        return true;
    }

    static List<Unit> units() {
        Map<String, URL> descriptors = new LinkedHashMap<>();
        for (ClassLoader loader : new ClassLoader[] {Thread.currentThread().getContextClassLoader(),
                UnitProviderCheck.class.getClassLoader()}) {
            if (loader == null) {
                continue;
            }
            try {
                Enumeration<URL> found = loader.getResources("META-INF/persistence.xml");
                while (found.hasMoreElements()) {
                    URL url = found.nextElement();
                    descriptors.putIfAbsent(url.toString(), url);
                }
            } catch (IOException e) {
                LOG.log(Level.FINE, "cannot list persistence.xml files", e);
            }
        }
        List<Unit> units = new ArrayList<>();
        for (URL url : descriptors.values()) {
            try (InputStream in = url.openStream()) {
                List<Unit> parsed = parse(in, url.toString());
                // a default mapping file beside it maps classes no <class> lists: those units' classes are unknown
                units.addAll(hasDefaultMappingFile(url) ? parsed.stream().map(u -> new Unit(u.name(), u.provider(),
                        u.customizer(), u.descriptor(), null)).toList() : parsed);
            } catch (Exception e) {
                // the container read it already and would have failed on a broken one: nothing to add here
                LOG.log(Level.FINE, "cannot read " + url, e);
            }
        }
        return units;
    }

    /**
     * Whether a mapping file JPA or EclipseLink reads by default ({@code orm.xml}, {@code eclipselink-orm.xml}) lies
     * beside {@code descriptor}; true also when that cannot be told (only a missing file counts as absent).
     */
    static boolean hasDefaultMappingFile(URL descriptor) {
        for (String file : DEFAULT_MAPPING_FILES) {
            try (InputStream mapping = new URL(descriptor, file).openStream()) {
                return true;
            } catch (FileNotFoundException absent) {
                // not there: the next one
            } catch (IOException unknown) {
                return true;
            }
        }
        return false;
    }

    static List<Unit> parse(InputStream in, String descriptor) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        NodeList elements = factory.newDocumentBuilder().parse(in).getElementsByTagNameNS("*", "persistence-unit");
        List<Unit> units = new ArrayList<>();
        for (int i = 0; i < elements.getLength(); i++) {
            Element unit = (Element) elements.item(i);
            NodeList providers = unit.getElementsByTagNameNS("*", "provider");
            String provider = providers.getLength() == 0 ? null : providers.item(0).getTextContent().trim();
            units.add(new Unit(unit.getAttribute("name"), provider == null || provider.isEmpty() ? null : provider,
                    customizerOf(unit), descriptor, listedOnly(unit),
                    "true".equalsIgnoreCase(property(unit, "eclipselink.composite-unit"))));
        }
        return units;
    }

    /**
     * The classes a unit lists when they are all it holds, else null: unlisted classes excluded ({@code true} or an
     * empty element), no mapping file or jar named, no metadata source of EclipseLink's.
     */
    private static List<String> listedOnly(Element unit) {
        NodeList exclude = unit.getElementsByTagNameNS("*", "exclude-unlisted-classes");
        String value = exclude.getLength() == 0 ? null : exclude.item(0).getTextContent().trim();
        boolean excluded = value != null && (value.isEmpty() || "true".equals(value));
        if (!excluded || unit.getElementsByTagNameNS("*", "mapping-file").getLength() > 0
                || unit.getElementsByTagNameNS("*", "jar-file").getLength() > 0
                || property(unit, "eclipselink.metadata-source") != null) {
            return null;
        }
        NodeList classes = unit.getElementsByTagNameNS("*", "class");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < classes.getLength(); i++) {
            names.add(classes.item(i).getTextContent().trim());
        }
        return List.copyOf(names);
    }

    /** The unit's session customizer; a unit configured by a sessions.xml names it there (not read here). */
    private static String customizerOf(Element unit) {
        String customizer = property(unit, CUSTOMIZER_PROPERTY);
        String sessionsXml = property(unit, "eclipselink.sessions-xml");
        return customizer != null ? customizer : sessionsXml == null ? null : "(in " + sessionsXml + ")";
    }

    private static String property(Element unit, String name) {
        NodeList properties = unit.getElementsByTagNameNS("*", "property");
        for (int i = 0; i < properties.getLength(); i++) {
            Element property = (Element) properties.item(i);
            if (name.equals(property.getAttribute("name").trim()) && !property.getAttribute("value").isBlank()) {
                return property.getAttribute("value").trim();
            }
        }
        return null;
    }
}
