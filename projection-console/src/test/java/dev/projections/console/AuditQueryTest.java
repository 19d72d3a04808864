package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.inspect.AuditFilter;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuditQueryTest {

    @Test
    void instantsDateTimesAndDatesAreReadAsUtcAndAToDateIncludesItsDay() {
        AuditQuery query = AuditQuery.from(Map.of("user", " alice ", "action", "retry", "from", "2026-12-01",
                "to", "2026-12-02"), Locale.ENGLISH);
        assertThat(query.problems()).isEmpty();
        assertThat(query.filter()).isEqualTo(new AuditFilter("alice", "retry", null,
                Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2026-12-03T00:00:00Z")));
        assertThat(AuditQuery.from(Map.of("from", "2026-12-01T08:00", "to", "2026-12-01T09:30:00Z"), Locale.ENGLISH).filter())
                .isEqualTo(new AuditFilter(null, null, null, Instant.parse("2026-12-01T08:00:00Z"),
                        Instant.parse("2026-12-01T09:30:00Z")));
    }

    @Test
    void badTimesAndIdsAreNamedAndLeaveNoFilterSoNothingUnfilteredIsShownAsFiltered() {
        AuditQuery query = AuditQuery.from(Map.of("from", "yesterday", "to", "2026-13-01", "before", "x"), Locale.ENGLISH);
        assertThat(query.filter()).isNull();
        assertThat(query.problems()).containsExactly(
                "from: \u201cyesterday\u201d is neither a date (2026-12-01), a UTC date and time (2026-12-01T08:00) nor"
                        + " an instant (2026-12-01T08:00:00Z).",
                "to: \u201c2026-13-01\u201d is neither a date (2026-12-01), a UTC date and time (2026-12-01T08:00) nor"
                        + " an instant (2026-12-01T08:00:00Z).",
                "before: \u201cx\u201d is not an audit entry id (a whole number).");
        assertThat(AuditQuery.from(Map.of("from", "2026-12-02", "to", "2026-12-01T00:00:00Z"), Locale.ENGLISH).problems())
                .containsExactly("The time range must end after it starts: from \u201c2026-12-02\u201d to"
                        + " \u201c2026-12-01T00:00:00Z\u201d.");
    }

    @Test
    void theFilterIsWrittenBackAsTypedForTheOlderLinkAndTheExport() {
        AuditQuery query = AuditQuery.from(Map.of("user", "o'neil & co", "projection", "order-search",
                "from", "2026-12-01", "before", "77"), Locale.ENGLISH);
        assertThat(query.filterQueryString()).isEqualTo("user=o%27neil%20%26%20co&projection=order-search&from=2026-12-01");
        assertThat(query.before()).isEqualTo(77L);
        assertThat(AuditQuery.from(Map.of(), Locale.ENGLISH).filter()).isEqualTo(AuditFilter.ALL);
    }
}
