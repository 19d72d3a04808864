package dev.projections.it.support;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.Testable;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * Test deployments: the EAR the build produced, with the test's settings in a jar of the EAR's lib as
 * {@code META-INF/projection.properties}. An in-container test class goes into the demo's WAR: it must sit in a
 * module that sees the EJBs (docs/pitfalls.md #7), and with several WARs in the EAR Arquillian's servlet protocol
 * must be told which one to enrich ({@link Testable#archiveToTest}). Beans the engine must see (recorders) go into the engine's ejb-jar,
 * since an ejb-jar does not see a WAR's beans.
 */
public final class Deployments {

    private static final String ENGINE_MODULE = "projection-ejb.jar";
    private static final String TEST_MODULE = "demo-web.war";

    private Deployments() {
    }

    public static EnterpriseArchive ear(Map<String, String> settings, Class<?>... testClasses) {
        return ear(settings, List.of(), testClasses);
    }

    /** With test beans the engine must see ({@link GatedProjection}, {@link RecordingTenantScope}). */
    public static EnterpriseArchive ear(Map<String, String> settings, List<Class<?>> engineBeans,
                                        Class<?>... testClasses) {
        return ear(settings, engineBeans, null, testClasses);
    }

    /**
     * The in-container tests in the WAR of application security domain {@code securityDomain}, so they can log
     * in with {@code HttpServletRequest.login} and call the console's EJBs as that user.
     */
    public static EnterpriseArchive earWithTestsInSecurityDomain(String securityDomain, Map<String, String> settings,
                                                                 Class<?>... testClasses) {
        return ear(settings, List.of(), securityDomain, testClasses);
    }

    /** The same, with test beans the engine must see. */
    public static EnterpriseArchive earWithTestsInSecurityDomain(String securityDomain, Map<String, String> settings,
                                                                 List<Class<?>> engineBeans, Class<?>... testClasses) {
        return ear(settings, engineBeans, securityDomain, testClasses);
    }

    private static EnterpriseArchive ear(Map<String, String> settings, List<Class<?>> engineBeans,
                                         String securityDomain, Class<?>... testClasses) {
        File built = new File(System.getProperty("projection.ear", "../projection-ear/target/projection-ear.ear"));
        if (!built.isFile()) {
            throw new IllegalStateException("no EAR at " + built.getAbsolutePath() + ": build the reactor first (mvn verify)");
        }
        EnterpriseArchive ear = ShrinkWrap.createFromZipFile(EnterpriseArchive.class, built);
        JavaArchive engine = ear.getAsType(JavaArchive.class, ENGINE_MODULE);
        engine.addClasses(CommitRecorder.class, CommitRecorder.Committed.class, CommitRecorder.Refreshed.class);
        engine.addClasses(engineBeans.toArray(Class<?>[]::new));
        ear.delete(ENGINE_MODULE);
        ear.addAsModule(engine);
        if (testClasses.length > 0) {
            WebArchive web = ear.getAsType(WebArchive.class, TEST_MODULE);
            web.addClasses(testClasses);
            web.addClasses(Await.class, Rows.class, PendingRows.class);
            web.addAsLibraries(jarOf(org.assertj.core.api.Assertions.class));
            if (securityDomain != null) {
                web.addAsWebInfResource(new StringAsset("<jboss-web xmlns=\"urn:jboss:jakartaee:1.0\" version=\"15.0\">"
                        + "<security-domain>" + securityDomain + "</security-domain></jboss-web>"), "jboss-web.xml");
            }
            ear.delete(TEST_MODULE);
            ear.addAsModule(Testable.archiveToTest(web));
        }
        String properties = settings.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n"));
        ear.addAsLibrary(ShrinkWrap.create(JavaArchive.class, "test-settings.jar")
                .addAsManifestResource(new StringAsset(properties), "projection.properties"));
        return ear;
    }

    /** The jar a test-only library was loaded from, to ship it with an in-container test. */
    private static File jarOf(Class<?> type) {
        try {
            return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException("cannot locate the jar of " + type, e);
        }
    }
}
