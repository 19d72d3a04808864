package dev.projections.console.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.console.CursorToken;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkPage;
import dev.projections.inspect.MarkRow;
import dev.projections.inspect.PageCursor;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A page of marks links its next page with the caller's filters, encoded so the API reads them back as they were. */
class ApiMarkPagesTest {

    private static final MarkRow ROW = new MarkRow("p", "acme", "7", Instant.parse("2026-12-07T10:00:00Z"),
            Instant.parse("2026-12-07T09:00:00Z"), null, 2, Instant.parse("2026-12-07T09:30:00Z"), "Time out", 0, 1,
            null);

    private final ConsoleReads reads = new ConsoleReads() {
        @Override
        public Set<String> projectionNames() {
            return Set.of("p");
        }

        @Override
        public MarkPage page(MarkFilter filter, PageCursor cursor, boolean forward, int size) {
            return new MarkPage(List.of(ROW), false, true);
        }
    };

    private final ApiResources api = new ApiResources(reads, new ConsoleAdmin(), new ApiLinks("/projections/api/v1"));

    @Test
    void theNextLinkCarriesTheFiltersEncodedAndThePositionAfterTheLastRow() {
        String next = api.marks("p", Map.of("state", "failing", "tenant", "acme", "error", "Time out+x&y=z",
                "limit", "1")).body().build().getString("next");

        assertThat(next).isEqualTo("/projections/api/v1/projections/p/marks?state=failing&tenant=acme"
                + "&error=Time%20out%2Bx%26y%3Dz&limit=1&after=" + CursorToken.encode(ROW.cursor()));
        assertThat(ManagementApi.query(next.substring(next.indexOf('?') + 1))).as("read back as the caller sent them")
                .containsEntry("error", "Time out+x&y=z").containsEntry("tenant", "acme").containsEntry("limit", "1");
    }
}
