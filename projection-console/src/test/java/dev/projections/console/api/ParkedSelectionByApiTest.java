package dev.projections.console.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.ParkedSelection;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.CappedCount;
import dev.projections.inspect.MarkFilter;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The API's bulk resume and skip of parked marks (docs/contract.md §12; engine review E1): the count that
 * {@code expected} is checked against and the action select the same marks, so a mark parked after the count is not
 * acted on; an {@code expected} beyond what a count can say is refused.
 */
class ParkedSelectionByApiTest {

    private static final Instant COUNTED_AT = Instant.parse("2026-12-04T10:00:00Z");

    private final List<String> happened = new CopyOnWriteArrayList<>();
    private final List<ParkedSelection> actedOn = new CopyOnWriteArrayList<>();

    private final ConsoleReads reads = new ConsoleReads() {
        @Override
        public Set<String> projectionNames() {
            return Set.of("p");
        }

        @Override
        public Instant now() {
            happened.add("now");
            return COUNTED_AT;
        }

        @Override
        public CappedCount count(MarkFilter filter) {
            happened.add("count");
            return new CappedCount(3, ConsoleReads.COUNT_CAP);
        }
    };

    private final ConsoleAdmin admin = new ConsoleAdmin() {
        @Override
        public int skipParked(ParkedSelection selection) {
            actedOn.add(selection);
            return 3;
        }

        @Override
        public int resumeParked(ParkedSelection selection) {
            actedOn.add(selection);
            return 3;
        }
    };

    private final ApiResources api = new ApiResources(reads, admin, new ApiLinks("/projections/api/v1"));

    @Test
    void aSkipActsOnlyOnMarksParkedByTheInstantBeforeItsCount() throws Exception {
        api.skipParked("p", body("{\"error\": \"Timeout\", \"expected\": 3}"));

        assertThat(actedOn).hasSize(1);
        assertThat(actedOn.get(0).parkedBy()).as("a mark parked after the count is left out").isEqualTo(COUNTED_AT);
        assertThat(actedOn.get(0).errorPrefix()).isEqualTo("Timeout");
        assertThat(happened).as("the bound is taken before the count").containsExactly("now", "count");
    }

    @Test
    void aResumeIsBoundedTheSameWay() throws Exception {
        api.resumeParked("p", body("{\"expected\": 3}"));

        assertThat(actedOn.get(0).parkedBy()).isEqualTo(COUNTED_AT);
    }

    @Test
    void anExpectedCountBeyondTheCapIsRefusedAsABadRequestNotCompared() {
        assertThatThrownBy(() -> api.skipParked("p", body("{\"expected\": " + (ConsoleReads.COUNT_CAP + 1) + "}")))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(400))
                .hasMessageContaining("\"expected\" must be 0.." + ConsoleReads.COUNT_CAP);
        assertThatThrownBy(() -> api.skipParked("p", body("{\"expected\": -1}")))
                .isInstanceOfSatisfying(ApiProblem.class, problem -> assertThat(problem.status()).isEqualTo(400));
        assertThat(actedOn).isEmpty();
    }

    private static JsonBody body(String json) throws Exception {
        return JsonBody.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "application/json",
                Set.of("tenant", "id", "error", "expected"));
    }
}
