package dev.projections.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Deployments;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ArchivePath;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An application that leaves micrometer-registry-prometheus out of its EAR and supplies no MeterRegistry: it
 * deploys, refreshes, and its metrics endpoint says there are no metrics instead of failing.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class MetricsWithoutPrometheusIT {

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        EnterpriseArchive ear = Deployments.ear(Map.of());
        for (ArchivePath path : ear.getContent().keySet()) {
            if (path.get().startsWith("/lib/io.micrometer-micrometer-registry-prometheus")) {
                ear.delete(path);
            }
        }
        return ear;
    }

    @Test
    void withoutAPrometheusRegistryTheDeploymentWorksAndTheEndpointSaysThereAreNoMetrics() throws Exception {
        HttpResponse<String> metrics = get("http://127.0.0.1:8080/projections/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).startsWith("# ").contains("no registry").doesNotContain("projection_pending");

        HttpResponse<String> health = get("http://127.0.0.1:8080/projections/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    }

    private static HttpResponse<String> get(String uri) throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create(uri)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
