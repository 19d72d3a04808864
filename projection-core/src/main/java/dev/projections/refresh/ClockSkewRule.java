package dev.projections.refresh;

import dev.projections.ClockSkew;
import dev.projections.config.Durations;
import java.time.Duration;

/**
 * When an instance's clock is too far from the database's (docs/contract.md §4, "Time"): beyond half the lease
 * margin, either way. A lease lapses for another instance at that instance's clock, so the margin protects only while
 * no two instances differ by more than it; with each instance within half of it against the one database clock, any
 * two are within the whole. The heartbeat warns by this rule, the console flags by it, and health and metrics report
 * its limit: one rule, so they cannot disagree.
 */
public final class ClockSkewRule {

    private final Duration leaseTime;
    private final Duration margin;
    private final Duration limit;

    public ClockSkewRule(Duration leaseTime) {
        this.leaseTime = leaseTime;
        this.margin = LeaseMargin.of(leaseTime);
        this.limit = margin.dividedBy(2);
    }

    /** How far this instance's clock may be from the database's either way: half the lease margin. */
    public Duration limit() {
        return limit;
    }

    /** {@code skew} (engine minus database) measured against this rule's limit. */
    public ClockSkew measured(Duration skew) {
        return new ClockSkew(skew, limit);
    }

    public boolean exceededBy(Duration skew) {
        return measured(skew).exceeded();
    }

    /** The log's warning for a skew beyond the limit: the same words at every sweep, so that a log watch can match it. */
    String warning(ClockSkew measured) {
        long millis = measured.skew().toMillis();
        return "projection engine: this instance's clock differs from the database's by " + (millis < 0 ? "" : "+")
                + millis + " ms, beyond the " + limit.toMillis() + " ms allowed (half the lease margin of "
                + margin.toMillis() + " ms, min(projection.lease-time / 10, 10 s) with projection.lease-time="
                + Durations.format(leaseTime) + "); another instance can then claim a mark"
                + " while this one still refreshes it. Fix: synchronise the clocks of every instance and of the"
                + " database server (NTP)";
    }
}
