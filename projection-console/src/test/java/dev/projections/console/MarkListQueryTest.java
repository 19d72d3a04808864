package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkState;
import dev.projections.inspect.PageCursor;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MarkListQueryTest {

    private static final PageCursor X = new PageCursor(Instant.parse("2030-01-01T10:00:00Z"), "acme", "k 17");

    @Test
    void theLinksThePagesHadBeforeStillNameTheirList() {
        MarkListQuery parked = MarkListQuery.from(Map.of("projection", "order-search", "failing", "true",
                "state", "PARKED", "tenant", "acme", "error", "search timed out after "));
        assertThat(parked.filter()).isEqualTo(new MarkFilter("order-search", "acme", MarkState.PARKED, true,
                "search timed out after "));
        assertThat(parked.cursor()).isNull();
        assertThat(parked.page()).isEqualTo(1);
        assertThat(MarkListQuery.from(Map.of("projection", "order-search")).filter())
                .isEqualTo(MarkFilter.pending("order-search"));
    }

    @Test
    void anAbsentTenantIsAllTenantsAnEmptyOneTheMarksWithoutATenantAndTheFormsAllBoxWins() {
        assertThat(MarkListQuery.from(Map.of("projection", "p")).tenant()).isNull();
        assertThat(MarkListQuery.from(Map.of("projection", "p", "tenant", "")).tenant()).isEqualTo("");
        assertThat(MarkListQuery.from(Map.of("projection", "p", "tenant", " acme ")).tenant()).isEqualTo("acme");
        assertThat(MarkListQuery.from(Map.of("projection", "p", "tenants", "all", "tenant", "acme")).tenant()).isNull();
    }

    @Test
    void aPageAfterACursorIsWrittenAsALinkAndReadBackAsTheSameList() {
        MarkListQuery list = MarkListQuery.from(Map.of("projection", "order-search", "failing", "true",
                "tenant", "", "error", "a&b=c d"));
        String link = list.after(X, 3).toQueryString();
        assertThat(link).startsWith("projection=order-search&failing=true&tenant=&error=a%26b%3Dc%20d&after=")
                .endsWith("&page=3");
        MarkListQuery back = MarkListQuery.from(parse(link));
        assertThat(back.filter()).isEqualTo(list.filter());
        assertThat(back.cursor()).isEqualTo(X);
        assertThat(back.forward()).isTrue();
        assertThat(back.page()).isEqualTo(3);
        MarkListQuery before = MarkListQuery.from(parse(list.before(X, 2).toQueryString()));
        assertThat(before.forward()).isFalse();
        assertThat(before.cursor()).isEqualTo(X);
        assertThat(before.page()).isEqualTo(2);
    }

    @Test
    void aMalformedCursorIsNamedAndTheListIsKeptFromItsFirstPage() {
        MarkListQuery list = MarkListQuery.from(Map.of("projection", "p", "failing", "true", "after", "not-a-cursor",
                "page", "7"));
        assertThat(list.cursorProblem()).startsWith("a page position");
        assertThat(list.cursor()).isNull();
        assertThat(list.page()).isEqualTo(1);
        assertThat(list.filter()).isEqualTo(MarkFilter.failing("p"));
    }

    @Test
    void unknownStatesBadPageNumbersAndOverlongPrefixesFallBackInsteadOfFailing() {
        MarkListQuery list = MarkListQuery.from(Map.of("projection", "p", "state", "NOPE", "page", "x",
                "after", CursorToken.encode(X), "error", "e".repeat(600)));
        assertThat(list.state()).isEqualTo(MarkState.ANY);
        assertThat(list.page()).as("a page after a cursor is at least the second").isEqualTo(2);
        assertThat(list.errorPrefix()).hasSize(500);
    }

    private static Map<String, String> parse(String query) {
        Map<String, String> parameters = new HashMap<>();
        for (String part : query.split("&")) {
            int equals = part.indexOf('=');
            parameters.put(part.substring(0, equals), URLDecoder.decode(part.substring(equals + 1), StandardCharsets.UTF_8));
        }
        return parameters;
    }
}
