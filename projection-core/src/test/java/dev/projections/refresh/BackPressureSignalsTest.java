package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The servers' pool-exhaustion texts are back-pressure wherever they sit in the causes; other failures are not. */
class BackPressureSignalsTest {

    private final BackPressure backPressure = new BackPressure(List.of());

    @Test
    void eachServersPoolExhaustionTextIsBackPressureAnywhereInTheCauses() {
        for (String text : List.of("IJ000655: No managed connections available within configured blocking timeout",
                "WFLYEJB0378: Failed to acquire a permit within 5 MINUTES",
                "In-use connections equal max-pool-size and expired max-wait-time. Cannot allocate more connections.",
                "Pool Instance not obtained within given time interval")) {
            RuntimeException wrapped = new RuntimeException("the call failed", new IllegalStateException(text));
            assertThat(backPressure.isBackPressure(wrapped)).as(text).isTrue();
        }
    }

    @Test
    void aFailureThatNamesNoPoolIsNotBackPressure() {
        assertThat(backPressure.isBackPressure(new SQLException("relation \"order_search\" does not exist")))
                .isFalse();
    }
}
