package dev.projections.it.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.test.ProjectionsExtension;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * An example application's own tests (src/it/…/src/test, compiled by its build with {@code projections-test}), run
 * here against the application this installation test deployed, as its {@code mvn verify -DskipITs=false
 * -Dprojections.test.url=…} would: they must find a test and pass it.
 */
final class ApplicationTests {

    private ApplicationTests() {
    }

    /** Runs the test class {@code className} of {@code testClasses} with its {@code /projections} at {@code url}. */
    static void pass(Path testClasses, String className, String url) throws Exception {
        assertThat(Files.isDirectory(testClasses)).as("the application's compiled tests at " + testClasses).isTrue();
        String before = System.getProperty(ProjectionsExtension.URL_PROPERTY);
        System.setProperty(ProjectionsExtension.URL_PROPERTY, url);
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {testClasses.toUri().toURL()},
                ApplicationTests.class.getClassLoader())) {
            thread.setContextClassLoader(loader);
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(DiscoverySelectors.selectClass(loader.loadClass(className))).build();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            LauncherFactory.create().execute(request, listener);
            TestExecutionSummary summary = listener.getSummary();
            String failures = summary.getFailures().stream()
                    .map(failure -> failure.getTestIdentifier().getDisplayName() + ": " + failure.getException())
                    .collect(Collectors.joining("; "));
            assertThat(summary.getTestsFoundCount()).as(className + " found no test").isPositive();
            assertThat(summary.getTestsSucceededCount()).as(className + ": " + failures)
                    .isEqualTo(summary.getTestsFoundCount());
        } finally {
            thread.setContextClassLoader(context);
            if (before == null) {
                System.clearProperty(ProjectionsExtension.URL_PROPERTY);
            } else {
                System.setProperty(ProjectionsExtension.URL_PROPERTY, before);
            }
        }
    }
}
