package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.config.Settings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The clock-skew warning fires before two instances can differ by more than the lease margin (docs/contract.md §4,
 * "Time"; review D5): each instance is held to half the margin against the one database clock.
 */
class ClockSkewRuleTest {

    private static final Instant DATABASE = Instant.parse("2026-12-01T10:00:00Z");

    /** The shortest lease, leases under, at and over 100 s (where the margin stops growing), the default, long ones. */
    private static final List<Duration> LEASES = List.of(Settings.MIN_LEASE_TIME, Duration.ofSeconds(30),
            Duration.ofSeconds(99), Duration.ofSeconds(100), Duration.ofSeconds(101), Settings.defaults().leaseTime(),
            Duration.ofMinutes(10), Duration.ofHours(1));

    @Test
    void twiceThePerInstanceLimitIsAtMostTheMarginLeasePolicyKeepsForTheDefaultLeaseAndLeasesBelowAndAbove100s() {
        for (Duration lease : LEASES) {
            Duration limit = new ClockSkewRule(lease).limit();
            assertThat(limit.multipliedBy(2)).as("two instances at the limit either way, lease " + lease)
                    .isLessThanOrEqualTo(new LeasePolicy(lease).margin());
        }
    }

    @Test
    void theLimitIsHalfTheMarginOf10sForTheDefaultLeaseAndHalfATenthOfAShortLease() {
        assertThat(Settings.defaults().leaseTime()).isEqualTo(Duration.ofMinutes(2));
        assertThat(new ClockSkewRule(Duration.ofMinutes(2)).limit()).isEqualTo(Duration.ofSeconds(5));
        assertThat(new ClockSkewRule(Duration.ofHours(1)).limit()).as("capped with the margin")
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(new ClockSkewRule(Duration.ofSeconds(30)).limit()).isEqualTo(Duration.ofMillis(1500));
        assertThat(new ClockSkewRule(Settings.MIN_LEASE_TIME).limit()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aClockJustOverTheLimitEitherWayIsFlaggedAndOneJustUnderOrAtItIsNot() {
        for (Duration lease : LEASES) {
            ClockSkewRule rule = new ClockSkewRule(lease);
            Duration limit = rule.limit();
            Duration justOver = limit.plusMillis(1);
            Duration justUnder = limit.minusMillis(1);
            assertThat(rule.exceededBy(skewOf(instance(justOver)))).as("ahead, lease " + lease).isTrue();
            assertThat(rule.exceededBy(skewOf(instance(justOver.negated())))).as("behind, lease " + lease).isTrue();
            assertThat(rule.exceededBy(skewOf(instance(justUnder)))).as("lease " + lease).isFalse();
            assertThat(rule.exceededBy(skewOf(instance(justUnder.negated())))).as("lease " + lease).isFalse();
            assertThat(rule.exceededBy(limit)).as("at the limit, lease " + lease).isFalse();
        }
    }

    /**
     * The review's case: with the default lease, A 12 s behind the database and B 12 s ahead were both silent under the
     * old tenth-of-the-lease rule, 24 s apart against a 10 s margin. Now the worst two silent clocks are the margin
     * apart, and the review's two are flagged.
     */
    @Test
    void twoInstancesTheRuleLeavesSilentAreNeverFurtherApartThanTheMarginAndTheReviewsTwoAreFlagged() {
        Duration lease = Duration.ofMinutes(2);
        ClockSkewRule rule = new ClockSkewRule(lease);
        Clock a = instance(rule.limit().negated());
        Clock b = instance(rule.limit());
        assertThat(rule.exceededBy(skewOf(a))).isFalse();
        assertThat(rule.exceededBy(skewOf(b))).isFalse();
        assertThat(Duration.between(a.instant(), b.instant())).isLessThanOrEqualTo(new LeasePolicy(lease).margin());

        assertThat(rule.exceededBy(skewOf(instance(Duration.ofSeconds(-12))))).isTrue();
        assertThat(rule.exceededBy(skewOf(instance(Duration.ofSeconds(12))))).isTrue();
    }

    @Test
    void theWarningNamesTheMeasuredSkewTheLimitTheMarginTheLeaseAndTheFix() {
        ClockSkewRule rule = new ClockSkewRule(Duration.ofMinutes(2));
        assertThat(rule.warning(rule.measured(Duration.ofMillis(5_001)))).isEqualTo("projection engine: this instance's"
                + " clock differs from the database's by +5001 ms, beyond the 5000 ms allowed (half the lease margin of"
                + " 10000 ms, min(projection.lease-time / 10, 10 s) with projection.lease-time=2m); another instance can"
                + " then claim a mark while this one still refreshes it. Fix: synchronise the clocks of every instance"
                + " and of the database server (NTP)");
        assertThat(rule.warning(rule.measured(Duration.ofMillis(-7_250)))).contains("by -7250 ms,");
    }

    /** An instance's clock, {@code offset} from the database's. */
    private static Clock instance(Duration offset) {
        return Clock.fixed(DATABASE.plus(offset), ZoneOffset.UTC);
    }

    private static Duration skewOf(Clock instance) {
        return Duration.between(DATABASE, instance.instant());
    }
}
