package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EveryListenerTest {

    private static final MarkKey KEY = new MarkKey("orders", "", "1");

    @Test
    void aListenerThatThrowsDoesNotKeepTheListenersAfterItFromBeingToldAndItsFailureReachesTheEngine() {
        List<String> told = new ArrayList<>();
        RefreshListener every = new EveryListener(List.of(
                (key, outcome, took) -> told.add("timer"),
                (key, outcome, took) -> {
                    throw new IllegalStateException("first application listener down");
                },
                (key, outcome, took) -> {
                    throw new IllegalArgumentException("second application listener down");
                },
                (key, outcome, took) -> told.add("last")));

        assertThatThrownBy(() -> every.refreshed(KEY, RefreshOutcome.SUCCESS, Duration.ZERO))
                .isInstanceOf(IllegalStateException.class).hasMessage("first application listener down")
                .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage)
                        .containsExactly("second application listener down"));
        assertThat(told).containsExactly("timer", "last");
    }
}
