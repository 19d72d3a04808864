package dev.projections.trend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.RefreshOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RefreshMinutesTest {

    private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    private static final MarkKey ORDER = new MarkKey("order-search", "", "1");
    private static final MarkKey CUSTOMER = new MarkKey("customer-stats", "", "alice");

    private final SetClock clock = new SetClock();
    private final RefreshMinutes minutes = new RefreshMinutes(clock);

    RefreshMinutesTest() {
        clock.set(T0.plusSeconds(5));
    }

    @Test
    void onlyMinutesThatEndedAreTakenEachProjectionApartAndFailuresCountedBesideCompletions() {
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(3));
        minutes.refreshed(ORDER, RefreshOutcome.REPEATED, Duration.ofMillis(4));
        minutes.refreshed(ORDER, RefreshOutcome.FAILED, Duration.ofMillis(9));
        minutes.refreshed(CUSTOMER, RefreshOutcome.SUCCESS, Duration.ofMillis(1));
        clock.set(T0.plusSeconds(65));
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(1));

        assertThat(minutes.takeEnded(T0.plusSeconds(59))).as("10:00 has not ended").isEmpty();
        List<RefreshMinutes.Minute> ended = minutes.takeEnded(T0.plusSeconds(70));
        assertThat(ended).extracting(RefreshMinutes.Minute::projection, RefreshMinutes.Minute::completed,
                RefreshMinutes.Minute::failed).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("customer-stats", 1L, 0L),
                        org.assertj.core.groups.Tuple.tuple("order-search", 2L, 1L));
        assertThat(ended.get(1).p99Micros()).as("the failed one was the slowest").isGreaterThanOrEqualTo(9_000L);
        assertThat(minutes.takeEnded(T0.plusSeconds(70))).as("taken once").isEmpty();
        assertThat(minutes.takeEnded(T0.plusSeconds(120))).extracting(RefreshMinutes.Minute::start)
                .containsExactly(T0.plusSeconds(60));
    }

    @Test
    void minutesGivenBackAreTakenAgainWithTheNextOnes() {
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(3));
        List<RefreshMinutes.Minute> taken = minutes.takeEnded(T0.plusSeconds(60));
        minutes.giveBack(taken);
        assertThat(minutes.takeEnded(T0.plusSeconds(120))).extracting(RefreshMinutes.Minute::completed).containsExactly(1L);
    }

    @Test
    void minutesNobodyTakesAreForgottenAfterAnHour() {
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(3));
        clock.set(T0.plus(Duration.ofMinutes(RefreshMinutes.KEPT_MINUTES + 1)));
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(3));
        assertThat(minutes.takeEnded(T0.plus(Duration.ofHours(3)))).extracting(RefreshMinutes.Minute::start)
                .containsExactly(T0.plus(Duration.ofMinutes(RefreshMinutes.KEPT_MINUTES + 1)));
    }

    @Test
    void theLagOfLiveMarksIsKeptPerMinuteBesideTheRefreshesAndANegativeOneCountsAsNone() {
        Instant now = T0.plusSeconds(5);
        minutes.refreshed(ORDER, now.minusMillis(40), now);
        minutes.refreshed(ORDER, now.plusMillis(500), now); // another instance's clock ahead
        minutes.refreshed(CUSTOMER, now.minusSeconds(3), now);
        minutes.refreshed(ORDER, RefreshOutcome.SUCCESS, Duration.ofMillis(1));

        List<RefreshMinutes.Minute> ended = minutes.takeEnded(T0.plusSeconds(60));
        assertThat(ended).extracting(RefreshMinutes.Minute::projection).containsExactly("customer-stats", "order-search");
        DurationHistogram orders = new DurationHistogram();
        orders.addText(ended.get(1).lagText());
        assertThat(orders.count()).isEqualTo(2);
        assertThat(orders.percentileMicros(0.5)).as("the one ahead counts as 0, at its bucket's bound").isEqualTo(1L);
        assertThat(orders.p99Micros()).isEqualTo(40_000L);
        assertThat(ended.get(1).completed()).as("a lag is not a refresh: the listener counts those").isEqualTo(1);
        DurationHistogram customers = new DurationHistogram();
        customers.addText(ended.get(0).lagText());
        assertThat(customers.p99Micros()).isEqualTo(3_000_000L);
    }

    @Test
    void aMinuteGivenBackKeepsItsLag() {
        Instant now = T0.plusSeconds(5);
        minutes.refreshed(ORDER, now.minusMillis(20), now);
        List<RefreshMinutes.Minute> taken = minutes.takeEnded(T0.plusSeconds(60));
        minutes.refreshed(ORDER, now.minusMillis(30), now);
        minutes.giveBack(taken);
        DurationHistogram lag = new DurationHistogram();
        lag.addText(minutes.takeEnded(T0.plusSeconds(120)).get(0).lagText());
        assertThat(lag.count()).isEqualTo(2);
    }
}
