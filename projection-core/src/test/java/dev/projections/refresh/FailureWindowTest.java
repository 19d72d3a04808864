package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FailureWindowTest {

    private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    private final FailureWindow window = new FailureWindow(3, 50);

    private static MarkKey key(String id) {
        return new MarkKey("p", "", id);
    }

    @Test
    void manyKeysFailingMostRefreshesSaySuspendWithTheCounts() {
        window.record(key("1"), true, T0);
        window.record(key("2"), true, T0.plusSeconds(1));
        assertThat(window.verdict("p", T0.plusSeconds(1))).as("two keys are not enough").isEmpty();
        window.record(key("3"), true, T0.plusSeconds(2));
        window.record(key("4"), false, T0.plusSeconds(3));
        assertThat(window.verdict("p", T0.plusSeconds(3)))
                .hasValue("3 of 4 refreshes in the last minute failed, across 3 keys");
        assertThat(window.verdict("other", T0.plusSeconds(3))).isEmpty();
    }

    @Test
    void oneKeyFailingOftenOrFailuresAmongManySuccessesOrOldFailuresDoNot() {
        for (int i = 0; i < 10; i++) {
            window.record(key("poison"), true, T0.plusSeconds(i));
        }
        assertThat(window.verdict("p", T0.plusSeconds(10))).as("one key, however often").isEmpty();

        window.record(key("a"), true, T0.plusSeconds(11));
        window.record(key("b"), true, T0.plusSeconds(12));
        for (int i = 0; i < 20; i++) {
            window.record(key("ok" + i), false, T0.plusSeconds(13));
        }
        assertThat(window.verdict("p", T0.plusSeconds(13))).as("12 of 32 is under half").isEmpty();

        assertThat(window.verdict("p", T0.plusSeconds(13 + 61))).as("a minute later all is forgotten").isEmpty();
    }

    @Test
    void forgetStartsOverAndZeroKeysTurnsItOff() {
        for (int i = 0; i < 3; i++) {
            window.record(key("k" + i), true, T0);
        }
        window.forget("p");
        assertThat(window.verdict("p", T0)).isEmpty();

        FailureWindow off = new FailureWindow(0, 50);
        for (int i = 0; i < 100; i++) {
            off.record(key("k" + i), true, T0);
        }
        assertThat(off.verdict("p", T0)).isEmpty();
    }

    @Test
    void eachProjectionIsJudgedByItsOwnThresholds() {
        // "p" by 3 keys at 50 %, "tolerant" never suspended, "touchy" after 2 keys at 100 %
        FailureWindow own = new FailureWindow(
                projection -> switch (projection) { case "tolerant" -> 0; case "touchy" -> 2; default -> 3; },
                projection -> projection.equals("touchy") ? 100 : 50);
        for (String projection : java.util.List.of("p", "tolerant", "touchy")) {
            own.record(new MarkKey(projection, "", "1"), true, T0);
            own.record(new MarkKey(projection, "", "2"), true, T0);
        }
        assertThat(own.verdict("touchy", T0)).hasValue("2 of 2 refreshes in the last minute failed, across 2 keys");
        assertThat(own.verdict("p", T0)).as("two keys are not enough for 3").isEmpty();
        for (int i = 3; i < 10; i++) {
            own.record(new MarkKey("tolerant", "", Integer.toString(i)), true, T0);
        }
        assertThat(own.verdict("tolerant", T0)).isEmpty();
    }
}
