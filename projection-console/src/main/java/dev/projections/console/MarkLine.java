package dev.projections.console;

import dev.projections.inspect.MarkRow;
import java.io.Serializable;
import java.time.Instant;

/** One mark's line, in a mark list and among the marks found by id (a class with getters, for EL). */
public final class MarkLine implements Serializable {
    private final MarkRow row;
    private final Instant now;

    MarkLine(MarkRow row, Instant now) {
        this.row = row;
        this.now = now;
    }

    public String getProjection() {
        return row.projection();
    }

    public String getTenant() {
        return row.tenant();
    }

    public String getTenantShown() {
        return row.tenant().isEmpty() ? "–" : row.tenant();
    }

    public String getId() {
        return row.id();
    }

    public String getState() {
        if (row.parked()) {
            return Text.of("marks.state.parked");
        }
        if (row.claimedUntil() != null && row.claimedUntil().isAfter(now)) {
            return Text.of("marks.state.claimed");
        }
        if (row.availableAt().isAfter(now)) {
            return row.attempts() > 0 ? Text.of("marks.state.backing-off") : Text.of("marks.state.waiting");
        }
        return Text.of("marks.state.due");
    }

    /** The instance holding the mark's lease, while it holds; empty otherwise. */
    public String getHolder() {
        return row.claimedUntil() != null && row.claimedUntil().isAfter(now) && row.claimedBy() != null
                ? row.claimedBy() : "";
    }

    public String getHolderTitle() {
        return getHolder().isEmpty() ? "" : Text.of("marks.holder.title", Format.exact(row.claimedUntil()));
    }

    public String getDue() {
        return row.parked() ? Text.of("marks.due.parked") : Format.relative(row.availableAt(), now);
    }

    public String getDueExact() {
        return Format.exact(row.availableAt());
    }

    public String getMarked() {
        return Format.relative(row.firstMarkedAt(), now);
    }

    public String getMarkedExact() {
        return Text.of("marks.marked.title", Format.exact(row.firstMarkedAt()), row.markCount());
    }

    public String getAttempts() {
        return Format.number(row.attempts());
    }

    public boolean isFailing() {
        return row.attempts() > 0;
    }

    public boolean isParked() {
        return row.parked();
    }

    public String getLastFailed() {
        return Format.relative(row.lastFailedAt(), now);
    }

    public String getLastFailedExact() {
        return Format.exact(row.lastFailedAt());
    }

    public String getLastError() {
        return row.lastError() == null ? "" : row.lastError();
    }

    public String getShortError() {
        String error = getLastError();
        int newline = error.indexOf('\n');
        String first = newline < 0 ? error : error.substring(0, newline);
        return first.length() <= 80 ? first : first.substring(0, 80) + "…";
    }

    public String getPriority() {
        return row.priority() == 0 ? "live" : "rebuild";
    }
}
