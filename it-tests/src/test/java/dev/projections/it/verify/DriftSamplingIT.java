package dev.projections.it.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.engine.Foundation;
import dev.projections.it.lifecycle.LifecycleRecorder;
import dev.projections.it.support.Await;
import dev.projections.it.support.Deployments;
import dev.projections.it.support.SampledProjection;
import dev.projections.lifecycle.DriftFound;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sweep's continuous drift sample on the running server (issue 51, docs/design.md D58): with
 * {@code projection.sampled.verify-per-minute} set, a read-model row changed behind the engine's back is found by the
 * sample, re-marked and repaired by the ordinary refresh, counted, recorded for the console and told to the
 * application's observer as {@code DriftFound}.
 */
@ExtendWith(ArquillianExtension.class)
class DriftSamplingIT {

    private static final String NAME = SampledProjection.NAME;

    @Deployment
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.sweep-interval", "1s",
                        "projection.sampled.verify-per-minute", "600"),
                List.of(SampledProjection.class), DriftSamplingIT.class, LifecycleRecorder.class);
    }

    @Inject
    SampledProjection sampled;

    @Inject
    LifecycleRecorder recorder;

    @Inject
    Foundation foundation;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Test
    void aRowChangedBehindTheEnginesBackIsFoundByTheSampleRepairedCountedRecordedAndTold() throws Exception {
        // the demo's TenantDirectory lists the tenants of its customers: at least this one
        createOrder("drift-sampling");
        // the sample starts again from the first key of the first tenant (the table outlives earlier runs of this test)
        update("DELETE FROM projection_drift_sample WHERE projection = ?");
        long recordedBefore = drifted();
        long countedBefore = foundation.stats().drifted(NAME);
        int seenBefore = recorder.seen().size();

        sampled.damage("k-37");
        // 10 keys a second: k-37 is reached within about 4 s of the sample's first turn
        Await.until("the damaged row repaired", Duration.ofSeconds(60), () -> !sampled.isDamaged("k-37"));
        Await.until("DriftFound told", Duration.ofSeconds(30), () -> told(seenBefore).isPresent());

        DriftFound found = told(seenBefore).orElseThrow();
        assertThat(found.ids()).containsExactly("k-37");
        assertThat(found.tenant()).as("a tenant of the directory, never tenant none").isNotEmpty();
        assertThat(found.verificationRun()).as("found by the sample, not a verification").isNull();
        assertThat(foundation.stats().drifted(NAME)).as("projection.drift").isEqualTo(countedBefore + 1);
        assertThat(drifted()).as("recorded for the console's day of drift").isEqualTo(recordedBefore + 1);
    }

    private Optional<DriftFound> told(int from) {
        List<LifecycleRecorder.Seen> seen = recorder.seen();
        return seen.subList(Math.min(from, seen.size()), seen.size()).stream().map(LifecycleRecorder.Seen::event)
                .filter(DriftFound.class::isInstance).map(DriftFound.class::cast)
                .filter(event -> event.projection().equals(NAME)).findFirst();
    }

    private static void createOrder(String tenant) throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:8080/demo/api/orders"))
                        .header("Content-Type", "application/json").header("X-Tenant", tenant)
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"customer\":\"sampled\",\"lines\":[{\"sku\":\"a\",\"quantity\":1,\"price\":2.5}]}"))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 201);
    }

    private long drifted() throws Exception {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT COALESCE(SUM(drifted), 0) FROM"
                     + " projection_drift WHERE projection = ? AND found_by = 'SAMPLE'")) {
            select.setString(1, NAME);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private void update(String sql) throws Exception {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, NAME);
            statement.executeUpdate();
        }
    }
}
