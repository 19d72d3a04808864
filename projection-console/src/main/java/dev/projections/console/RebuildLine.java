package dev.projections.console;

import dev.projections.RebuildProgress;
import java.io.Serializable;
import java.time.Instant;
import java.util.Locale;

/** One rebuild run as the console shows it, in the overview, the history and a run's page. */
public final class RebuildLine implements Serializable {

    private final RebuildProgress run;
    private final Instant now;

    RebuildLine(RebuildProgress run, Instant now) {
        this.run = run;
        this.now = now;
    }

    /** "finished, 3 failing" rather than a run that looks done while marks of it still fail; who cancelled one. */
    static String stateOf(RebuildProgress run) {
        String state = RebuildProgress.FINISHED_FAILING.equals(run.state())
                ? "finished, " + Format.number(run.failing()) + " failing"
                : RebuildProgress.CANCELLED.equals(run.state()) && run.cancelledBy() != null
                ? "cancelled by " + run.cancelledBy()
                : run.state().toLowerCase(Locale.ROOT);
        return run.takeovers() > 0 ? state + ", taken over " + run.takeovers() + "×" : state;
    }

    public RebuildProgress getRun() {
        return run;
    }

    public String getRunId() {
        return run.runId();
    }

    public String getProjection() {
        return run.projection();
    }

    /** The raw tenant, for links. */
    public String getTenantId() {
        return run.tenant();
    }

    public String getTenant() {
        return run.tenant().isEmpty() ? "(none)" : run.tenant();
    }

    public String getScope() {
        return run.scope().toString() + (run.partitions() > 1 ? ", " + run.partitions() + " partitions" : "");
    }

    public String getStartedBy() {
        return run.startedBy() == null ? "" : run.startedBy();
    }

    public String getState() {
        return stateOf(run);
    }

    public boolean isRunning() {
        return RebuildProgress.RUNNING.equals(run.state());
    }

    public boolean isFailing() {
        return RebuildProgress.FINISHED_FAILING.equals(run.state());
    }

    public String getMarked() {
        return Format.number(run.marked());
    }

    public String getRemaining() {
        return Format.number(run.remaining());
    }

    /** "2 of 4" while partitions still list ids. */
    public String getPartitions() {
        return run.partitionsDone() + " of " + run.partitions();
    }

    public String getDuration() {
        return Format.age(run.duration(now));
    }

    /** Ids marked per second, for a running run. */
    public String getRate() {
        return isRunning() ? Format.number(Math.round(run.ratePerSecond())) + "/s" : "";
    }

    /** Time left once every id is marked; "listing ids" before, when it cannot be known. */
    public String getEstimate() {
        if (!isRunning()) {
            return "";
        }
        return run.estimatedTimeLeft(now).map(left -> "about " + Format.age(left) + " left")
                .orElse(run.partitionsDone() < run.partitions() ? "listing ids" : "");
    }

    public String getStarted() {
        return Format.relative(run.startedAt(), now);
    }

    public String getStartedExact() {
        return Format.exact(run.startedAt());
    }

    /** For {@code <time datetime>}: the browser shows it in its own zone. */
    public String getStartedIso() {
        return run.startedAt().toString();
    }

    public String getFinishedIso() {
        return run.finishedAt() == null ? "" : run.finishedAt().toString();
    }

    public String getFinished() {
        return Format.exact(run.finishedAt());
    }

    public String getLastError() {
        return run.lastError() == null ? "" : run.lastError();
    }

    public String getTitle() {
        return "run " + run.runId() + ", started " + Format.exact(run.startedAt())
                + (run.finishedAt() == null ? "" : ", finished " + Format.exact(run.finishedAt()));
    }
}
