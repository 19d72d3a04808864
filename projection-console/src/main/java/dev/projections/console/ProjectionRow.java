package dev.projections.console;

import dev.projections.ProjectionStatus;
import dev.projections.RebuildProgress;
import dev.projections.config.Durations;
import dev.projections.inspect.LagSummary;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;

/**
 * One projection's line, in the overview's table and at the top of its own page (a class with getters: Jakarta EL 5
 * does not read record components).
 */
public final class ProjectionRow implements Serializable {
    private final ProjectionStatus status;
    private final boolean rebuildable;
    private final boolean offersClear;
    private final Instant now;
    private final long perMinute;
    private String dueTrend = "";
    private String rateTrend = "";
    private LagSummary lag = LagSummary.NONE;
    private Duration objective;

    ProjectionRow(ProjectionStatus status, boolean rebuildable, boolean offersClear, long perMinute, Instant now) {
        this.status = status;
        this.perMinute = perMinute;
        this.rebuildable = rebuildable;
        this.offersClear = offersClear;
        this.now = now;
    }

    public String getProjection() {
        return status.projection();
    }

    /** The last hour's due marks, a small server-drawn SVG (no script). */
    public String getDueTrend() {
        return dueTrend;
    }

    /** The last hour's refreshes per minute across instances, a small server-drawn SVG. */
    public String getRateTrend() {
        return rateTrend;
    }

    ProjectionRow withTrends(TrendCharts charts) {
        dueTrend = charts.due(TrendChart.spark());
        rateTrend = charts.rate(TrendChart.spark());
        return this;
    }

    /** The last hour's lag across instances, and the projection's freshness objective ({@code null}: none set). */
    ProjectionRow withLag(LagSummary lag, Duration objective) {
        this.lag = lag;
        this.objective = objective;
        return this;
    }

    /** "12 ms / 85 ms": the last hour's median and 99th percentile lag, "–" without a refresh of a live mark. */
    public String getLag() {
        if (lag.refreshes() == 0) {
            return "–";
        }
        String percentiles = Text.of("lag.percentiles", Format.micros(lag.p50Micros()), Format.micros(lag.p99Micros()));
        // in words, not by colour alone
        return isLagMissed() ? Text.of("lag.percentiles.missed", percentiles, Durations.format(objective)) : percentiles;
    }

    public String getLagTitle() {
        String counted = lag.refreshes() == 0 ? Text.of("lag.none")
                : Text.of("lag.title", lag.refreshes(), Format.micros(lag.p50Micros()), Format.micros(lag.p99Micros()));
        return objective == null ? counted : counted + " " + getObjectiveState();
    }

    /** Whether the last hour's p99 lag was above the freshness objective (the overview marks the cell). */
    public boolean isLagMissed() {
        return Boolean.FALSE.equals(lag.objectiveMet(objective));
    }

    /** "met", "missed (p99 …)", or why there is nothing to judge. */
    public String getObjectiveState() {
        if (objective == null) {
            return Text.of("lag.objective.none");
        }
        Boolean met = lag.objectiveMet(objective);
        String within = Durations.format(objective);
        if (met == null) {
            return Text.of("lag.objective.no-refreshes", within);
        }
        return met ? Text.of("lag.objective.met", within, Format.micros(lag.p99Micros()))
                : Text.of("lag.objective.missed", within, Format.micros(lag.p99Micros()));
    }

    public String getPending() {
        return Format.number(status.pending());
    }

    public String getDueNow() {
        return Format.number(status.dueNow());
    }

    public String getParked() {
        return Format.number(status.parked());
    }

    public boolean isHasParked() {
        return status.parked() > 0;
    }

    public String getFailing() {
        return Format.number(status.failing());
    }

    public String getPerMinute() {
        return Format.number(perMinute);
    }

    public boolean isHasFailing() {
        return status.failing() > 0;
    }

    /** "Retry 3 failing": it names the failing marks it makes due, parked ones stay parked. */
    public String getRetryLabel() {
        return Text.of("overview.retry-failed", status.failing() - status.parked());
    }

    public boolean isHasRetryable() {
        return status.failing() > status.parked();
    }

    public String getOldestDueAge() {
        return status.dueNow() == 0 ? "–" : Format.age(status.oldestDueAge());
    }

    public String getOldestDueTitle() {
        return status.dueNow() == 0 ? Text.of("overview.oldest-due.none")
                : Text.of("overview.oldest-due.since", Format.exact(now.minus(status.oldestDueAge())));
    }

    public String getLastError() {
        return status.lastError() == null ? "" : status.lastError();
    }

    public boolean isPaused() {
        return status.paused();
    }

    /** "paused" by an operator, "suspended" by failures (its reason on hover), or "running". */
    public String getRunState() {
        return status.suspendedReason() != null ? Text.of("overview.state.suspended")
                : status.paused() ? Text.of("overview.state.paused") : Text.of("overview.state.running");
    }

    public String getSuspendedReason() {
        return status.suspendedReason() == null ? "" : status.suspendedReason();
    }

    public boolean isSuspended() {
        return status.suspendedReason() != null;
    }

    public boolean isRebuildable() {
        return rebuildable;
    }

    public boolean isOffersClear() {
        return offersClear;
    }

    public String getRebuild() {
        return describe(status.latestRebuild(), now);
    }

    public String getRebuildTitle() {
        return status.latestRebuild() == null ? "" : new RebuildLine(status.latestRebuild(), now).getTitle();
    }

    ProjectionStatus status() {
        return status;
    }

    /** The latest rebuild in a few words: its counts while it runs, how and when it ended after. */
    static String describe(RebuildProgress run, Instant now) {
        if (run == null) {
            return "–";
        }
        if (RebuildProgress.RUNNING.equals(run.state())) {
            return Text.of("overview.rebuild.running", run.marked(), run.remaining());
        }
        return Text.of("overview.rebuild.ended", RebuildLine.stateOf(run), Format.relative(run.finishedAt(), now));
    }
}
