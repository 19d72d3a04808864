package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.inspect.PageCursor;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class CursorTokenTest {

    private static final Instant DUE = Instant.parse("2030-01-01T10:00:00.123456Z");

    @Test
    void aCursorSurvivesTheRoundTripWhateverItsTenantAndIdHold() {
        for (PageCursor cursor : new PageCursor[] {new PageCursor(DUE, "", "42"),
                new PageCursor(DUE, "acme", "order|7|x"), new PageCursor(DUE, "a|b", "|"),
                new PageCursor(DUE, "tenant with spaces & ünïcödé 🙂", "line\nbreak, \"quoted\" = +1"),
                new PageCursor(Instant.EPOCH, "12", "34")}) {
            assertThat(CursorToken.decode(CursorToken.encode(cursor))).isEqualTo(cursor);
        }
    }

    @Test
    void aTokenIsOneUrlSafeWordWithoutPadding() {
        String token = CursorToken.encode(new PageCursor(DUE, "a b/c?d&e=f", "#1+2"));
        assertThat(token).matches("[A-Za-z0-9_-]+");
    }

    @Test
    void aTokenNoListWroteIsRefusedWithAReasonNeverAnotherException() {
        String cut = CursorToken.encode(new PageCursor(DUE, "acme", "42"));
        for (String token : new String[] {"", "!!!", "abc", cut.substring(0, cut.length() - 3), encoded("2|" + DUE + "|0|1"),
                encoded("1|yesterday|0|1"), encoded("1|" + DUE + "|x|1"), encoded("1|" + DUE + "|4|acme"),
                encoded("1|" + DUE + "|-1|1"), encoded("1|" + DUE), "A".repeat(CursorToken.MAX_LENGTH + 1)}) {
            assertThatThrownBy(() -> CursorToken.decode(token)).as(token)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("a page position");
        }
        assertThatThrownBy(() -> CursorToken.decode(null)).hasMessage("a page position must be 1..1200 characters, was none");
    }

    private static String encoded(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
