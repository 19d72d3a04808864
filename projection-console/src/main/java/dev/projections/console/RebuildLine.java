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
                ? Text.of("run.state.finished-failing", run.failing())
                : RebuildProgress.CANCELLED.equals(run.state()) && run.cancelledBy() != null
                ? Text.of("run.state.cancelled-by", run.cancelledBy())
                : named(run.state());
        state = run.takeovers() > 0 ? Text.of("run.state.taken-over", state, run.takeovers()) : state;
        // a verification is listed among the runs: its marked keys are the drifted ones of those it checked
        return run.verifies() ? Text.of("run.state.verification", state, run.marked(), run.checked()) : state;
    }

    /** A state in words; one the console does not know yet (a newer engine's) as the engine names it. */
    private static String named(String state) {
        return switch (state) {
            case RebuildProgress.RUNNING -> Text.of("run.state.running");
            case RebuildProgress.FINISHED -> Text.of("run.state.finished");
            case RebuildProgress.FAILED -> Text.of("run.state.failed");
            case RebuildProgress.CANCELLED -> Text.of("run.state.cancelled");
            default -> state.toLowerCase(Locale.ROOT);
        };
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
        return run.tenant().isEmpty() ? Text.of("run.tenant.none") : run.tenant();
    }

    public String getScope() {
        // the scope as the engine writes it (ids 1..3 and status=NEW): the audit log and the API say it so too
        return run.partitions() > 1 ? Text.of("run.scope.partitions", run.scope().toString(), run.partitions())
                : run.scope().toString();
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
        return Text.of("run.partitions", run.partitionsDone(), run.partitions());
    }

    public String getDuration() {
        return Format.age(run.duration(now));
    }

    /** Ids marked per second, for a running run. */
    public String getRate() {
        return isRunning() ? Text.of("run.rate", Math.round(run.ratePerSecond())) : "";
    }

    /** Time left once every id is marked; "listing ids" before, when it cannot be known. */
    public String getEstimate() {
        if (!isRunning()) {
            return "";
        }
        return run.estimatedTimeLeft(now).map(left -> Text.of("run.time-left", Format.age(left)))
                .orElse(run.partitionsDone() < run.partitions() ? Text.of("run.listing-ids") : "");
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
        return run.finishedAt() == null ? Text.of("run.title", run.runId(), Format.exact(run.startedAt()))
                : Text.of("run.title.finished", run.runId(), Format.exact(run.startedAt()), Format.exact(run.finishedAt()));
    }
}
