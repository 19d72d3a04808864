package dev.projections.console;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import dev.projections.config.TrustedProxies;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Failed logins counted per client address, not per account: after {@code allowed} failures from one address, its
 * next attempt is refused unchecked until a delay has passed since its last failure — 1 s after the {@code allowed}th,
 * doubling with each failure after it, at most {@code longest}. A refused attempt is not a failure, so it does not
 * extend the delay, and an address that has not been failing is never delayed: someone guessing passwords slows
 * down only themselves and cannot keep an operator at another address out. An attempt counts as a failure from its
 * start until it succeeds, so parallel attempts get no more tries than sequential ones. An address's failures are
 * forgotten {@code longest} after its last one (a success does not wipe them); IPv6 addresses count by /64; at most
 * {@code capacity} addresses are remembered, the longest quiet forgotten first, so memory stays bounded whatever an attacker sends (rotating addresses then
 * buys tries, which an address-based throttle cannot prevent; the delay still slows each address).
 * <p>
 * Example, 5 allowed: the 5th wrong password waits 1 s, the 6th 2 s, the 7th 4 s, … the 15th and later 15 minutes.
 */
public final class LoginThrottle {

    /** Wrong passwords per client address before its attempts are delayed. */
    public static final int ALLOWED_FAILURES = 5;

    /**
     * The one throttle of this web application (its class loader): the console's form login and the management API's
     * Basic logins count the same failures, so an address cannot guess on one after it was slowed on the other.
     */
    private static final LoginThrottle SHARED = new LoginThrottle(ALLOWED_FAILURES, Duration.ofMinutes(15), 10_000,
            Clock.systemUTC());

    public static LoginThrottle shared() {
        return SHARED;
    }

    private record Failures(int count, Instant last) {
    }

    private final int allowed;
    private final Duration longest;
    private final int capacity;
    private final Clock clock;
    private final Map<String, Failures> byAddress;
    /** Where the trusted proxies come from, and what was read of it at the first login after it was set. */
    private static final class Proxies {
        private final Supplier<TrustedProxies> source;
        private volatile TrustedProxies read;

        Proxies(Supplier<TrustedProxies> source) {
            this.source = source;
        }

        TrustedProxies get() {
            TrustedProxies trusted = read;
            if (trusted == null) {
                trusted = source.get(); // the settings were checked when the engine started: this does not throw
                read = trusted;
            }
            return trusted;
        }
    }

    private volatile Proxies proxies = new Proxies(() -> TrustedProxies.NONE);

    public LoginThrottle(int allowed, Duration longest, int capacity, Clock clock) {
        if (allowed < 1) {
            throw new IllegalArgumentException("allowed failures must be >= 1, was " + allowed);
        }
        this.allowed = allowed;
        this.longest = longest;
        this.capacity = capacity;
        this.clock = clock;
        this.byAddress = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
                return size() > LoginThrottle.this.capacity;
            }
        };
    }

    /**
     * Where the reverse proxies whose {@code X-Forwarded-For} names the client are read from, at the first login
     * after this call (none until the console started).
     */
    public void trustFrom(Supplier<TrustedProxies> source) {
        proxies = new Proxies(source);
    }

    /**
     * What a login's failures are counted by: the {@link #key} of the client it stands for — {@code peer}, the
     * address of the connection, or when that is a trusted proxy, the client its {@code forwardedFor} headers name.
     */
    public String clientKey(String peer, List<String> forwardedFor) {
        return key(proxies.get().client(peer, forwardedFor));
    }

    /** How long {@code address} must still wait before its next attempt is checked; zero when it may try now. */
    public synchronized Duration wait(String address) {
        Failures failures = byAddress.get(address);
        if (failures == null || failures.count() < allowed) {
            return Duration.ZERO;
        }
        Duration left = Duration.between(clock.instant(), failures.last().plus(delay(failures.count())));
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Refuses an attempt from {@code address} while it must wait, saying for how long. */
    public void check(String address) {
        Duration wait = wait(address);
        if (!wait.isZero()) {
            throw new Throttled(wait);
        }
    }

    /**
     * Starts a login attempt from {@code address}: refused while it must wait; otherwise counted as a failure at once,
     * in the same step, so that attempts sent side by side cannot all pass one check before any of them failed. A
     * success takes its count back ({@link #succeeded}).
     */
    public synchronized void attempt(String address) {
        check(address);
        failed(address);
    }

    public synchronized void failed(String address) {
        Instant now = clock.instant();
        Failures before = byAddress.get(address);
        int count = before == null || before.last().plus(longest).isBefore(now) ? 1 : before.count() + 1;
        byAddress.put(address, new Failures(count, now));
    }

    /**
     * An {@link #attempt} that succeeded: its failure is taken back. The address's earlier failures stay — a login of
     * one's own account must not wipe out the guesses at another's — and age out {@code longest} after the last one.
     */
    public synchronized void succeeded(String address) {
        Failures counted = byAddress.get(address);
        if (counted == null) {
            return;
        }
        if (counted.count() <= 1) {
            byAddress.remove(address);
        } else {
            byAddress.put(address, new Failures(counted.count() - 1, counted.last()));
        }
    }

    /**
     * What failures are counted by: the address itself, or for IPv6 its /64 network, which one host usually has
     * whole and could otherwise rotate through.
     */
    public static String key(String remoteAddress) {
        if (remoteAddress == null || remoteAddress.indexOf(':') < 0) {
            return remoteAddress == null ? "unknown" : remoteAddress;
        }
        try {
            byte[] bytes = InetAddress.getByName(remoteAddress).getAddress(); // a literal: no lookup
            if (bytes.length != 16) {
                return remoteAddress;
            }
            StringBuilder network = new StringBuilder();
            for (int i = 0; i < 8; i += 2) {
                network.append(Integer.toHexString(((bytes[i] & 0xff) << 8) | (bytes[i + 1] & 0xff))).append(':');
            }
            return network.append(":/64").toString();
        } catch (UnknownHostException notALiteral) {
            return remoteAddress;
        }
    }

    /** 1 s for the {@code allowed}th failure, doubling with each after it, at most {@code longest}. */
    Duration delay(int failures) {
        int doublings = Math.min(failures - allowed, 30);
        Duration delay = Duration.ofSeconds(1L << doublings);
        return delay.compareTo(longest) > 0 ? longest : delay;
    }

    /** An attempt refused unchecked: its address failed too often and must wait {@link #retryAfter()}. */
    public static final class Throttled extends RuntimeException {

        private final Duration retryAfter;

        Throttled(Duration retryAfter) {
            super("too many failed logins from this address: try again in " + seconds(retryAfter) + " s", null,
                    false, false);
            this.retryAfter = retryAfter;
        }

        public Duration retryAfter() {
            return retryAfter;
        }

        /** Whole seconds, rounded up, as a Retry-After header gives them. */
        public long retryAfterSeconds() {
            return Math.max(1, seconds(retryAfter)); // a delay ending within the millisecond still answers 429: never "0"
        }

        private static long seconds(Duration duration) {
            return (duration.toMillis() + 999) / 1000;
        }
    }
}
