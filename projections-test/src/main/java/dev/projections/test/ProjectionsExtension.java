package dev.projections.test;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test a {@link ProjectionsTestClient} of the deployed application, as a parameter:
 * <pre>{@code
 * @ExtendWith(ProjectionsExtension.class)
 * class BookTitlesIT {
 *     @Test
 *     void aNewBookHasItsTitleLine(ProjectionsTestClient projections) { … projections.assertIdle(…); … }
 * }
 * }</pre>
 * The application's {@code /projections} URL is the system property {@value #URL_PROPERTY} (Failsafe's
 * {@code systemPropertyVariables}), else the environment variable {@value #URL_VARIABLE}, else
 * {@value #DEFAULT_URL}. Registered with {@code @RegisterExtension ProjectionsExtension.at(url)} it takes that URL.
 */
public final class ProjectionsExtension implements ParameterResolver {

    public static final String URL_PROPERTY = "projections.test.url";
    public static final String URL_VARIABLE = "PROJECTIONS_TEST_URL";
    public static final String DEFAULT_URL = "http://localhost:8080/projections";

    private final String url;

    /** The URL from {@value #URL_PROPERTY}, {@value #URL_VARIABLE} or {@value #DEFAULT_URL}. */
    public ProjectionsExtension() {
        this(null);
    }

    private ProjectionsExtension(String url) {
        this.url = url;
    }

    /** An extension for the application whose {@code /projections} is at {@code url}. */
    public static ProjectionsExtension at(String url) {
        ProjectionsTestClient.at(url); // a bad URL fails here, naming it
        return new ProjectionsExtension(url);
    }

    /** The URL this extension's clients use. */
    public String url() {
        if (url != null) {
            return url;
        }
        String property = System.getProperty(URL_PROPERTY);
        if (property != null && !property.isBlank()) {
            return property;
        }
        String variable = System.getenv(URL_VARIABLE);
        return variable != null && !variable.isBlank() ? variable : DEFAULT_URL;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ProjectionsTestClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        String url = url();
        // one client per URL for the whole run: each holds a connection pool and a selector thread
        return context.getRoot().getStore(ExtensionContext.Namespace.create(ProjectionsExtension.class))
                .getOrComputeIfAbsent(url, ProjectionsExtension::client, ProjectionsTestClient.class);
    }

    private static ProjectionsTestClient client(String url) {
        try {
            return ProjectionsTestClient.at(url);
        } catch (IllegalArgumentException bad) {
            throw new ParameterResolutionException(URL_PROPERTY + ": " + bad.getMessage(), bad);
        }
    }
}
