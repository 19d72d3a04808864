package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {

    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    private final MovableClock clock = new MovableClock();
    private final LoginThrottle throttle = new LoginThrottle(5, Duration.ofMinutes(15), 3, clock);

    @Test
    void anAddressMayFailFourTimesUndelayedThenWaitsOneSecondDoublingPerFailureUpToTheLongest() {
        for (int i = 1; i <= 4; i++) {
            throttle.failed("10.0.0.1");
            assertThat(throttle.wait("10.0.0.1")).as("after " + i).isZero();
        }
        throttle.failed("10.0.0.1");
        assertThat(throttle.wait("10.0.0.1")).isEqualTo(Duration.ofSeconds(1));
        clock.move(Duration.ofSeconds(1));
        throttle.failed("10.0.0.1");
        assertThat(throttle.wait("10.0.0.1")).isEqualTo(Duration.ofSeconds(2));
        for (int i = 7; i <= 20; i++) {
            clock.move(throttle.wait("10.0.0.1"));
            throttle.failed("10.0.0.1");
        }
        assertThat(throttle.wait("10.0.0.1")).as("capped").isEqualTo(Duration.ofMinutes(15));
    }

    @Test
    void aBurstFromOneAddressNeverDelaysAnother() {
        for (int i = 0; i < 12; i++) {
            throttle.failed("10.0.0.1");
        }
        assertThatThrownBy(() -> throttle.check("10.0.0.1")).isInstanceOf(LoginThrottle.Throttled.class)
                .hasMessage("too many failed logins from this address: try again in 128 s");
        assertThat(throttle.wait("10.0.0.2")).isZero();
        throttle.check("10.0.0.2");
    }

    @Test
    void refusedAttemptsDoNotExtendTheDelayWhichEndsOnItsOwn() {
        for (int i = 0; i < 6; i++) {
            throttle.failed("10.0.0.1");
        }
        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> throttle.check("10.0.0.1")).isInstanceOf(LoginThrottle.Throttled.class);
            clock.move(Duration.ofMillis(200));
        }
        assertThat(throttle.wait("10.0.0.1")).as("2 s from the last failure, not from the last refusal").isZero();
        throttle.check("10.0.0.1");
    }

    @Test
    void aSuccessTakesBackOnlyItsOwnAttemptAndAQuietLongestForgetsTheFailures() {
        for (int i = 0; i < 4; i++) {
            throttle.attempt("10.0.0.1"); // four wrong passwords: counted as they start
        }
        throttle.attempt("10.0.0.1");
        throttle.succeeded("10.0.0.1"); // a login to one's own account
        assertThat(throttle.wait("10.0.0.1")).as("its own attempt taken back").isZero();
        throttle.attempt("10.0.0.1");
        assertThat(throttle.wait("10.0.0.1")).as("the four guesses before it still count").isEqualTo(Duration.ofSeconds(1));
        clock.move(Duration.ofMinutes(16));
        throttle.attempt("10.0.0.1");
        assertThat(throttle.wait("10.0.0.1")).as("the old failures aged out").isZero();
    }

    @Test
    void attemptsSentSideBySideCountBeforeAnyOfThemFailed() {
        for (int i = 0; i < 5; i++) {
            throttle.attempt("10.0.0.1"); // none has an outcome yet
        }
        assertThatThrownBy(() -> throttle.attempt("10.0.0.1")).isInstanceOf(LoginThrottle.Throttled.class);
    }

    @Test
    void ipv6AddressesCountByTheirSlash64AndIpv4ByTheAddress() {
        assertThat(LoginThrottle.key("2001:db8:1:2:aaaa::1")).isEqualTo(LoginThrottle.key("2001:db8:1:2:bbbb::9"))
                .isEqualTo("2001:db8:1:2::/64");
        assertThat(LoginThrottle.key("2001:db8:1:3::1")).isNotEqualTo(LoginThrottle.key("2001:db8:1:2::1"));
        assertThat(LoginThrottle.key("192.0.2.7")).isEqualTo("192.0.2.7");
        assertThat(LoginThrottle.key(null)).isEqualTo("unknown");
    }

    @Test
    void atMostCapacityAddressesAreRememberedTheQuietestForgottenFirst() {
        for (int i = 0; i < 5; i++) {
            throttle.failed("10.0.0.1");
        }
        throttle.failed("10.0.0.2");
        throttle.failed("10.0.0.3");
        throttle.failed("10.0.0.4"); // the fourth address: the one quiet longest goes
        assertThat(throttle.wait("10.0.0.1")).isZero();
        throttle.failed("10.0.0.2");
        assertThat(throttle.wait("10.0.0.2")).isZero();
    }

    private static final class MovableClock extends Clock {
        private Instant now = T0;

        void move(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
