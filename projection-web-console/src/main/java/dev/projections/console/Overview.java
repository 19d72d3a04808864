package dev.projections.console;

import dev.projections.ProjectionStatus;
import dev.projections.Projections;
import dev.projections.RebuildProgress;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.text.NumberFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/** The overview: every deployed projection with its marks, failures, pause and rebuild; reloaded every few seconds. */
@Named
@ViewScoped
public class Overview implements Serializable {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    /** One projection's line (a class with getters: Jakarta EL 5 does not read record components). */
    public static final class Row implements Serializable {
        private final ProjectionStatus status;

        Row(ProjectionStatus status) {
            this.status = status;
        }

        public String getProjection() {
            return status.projection();
        }

        public String getPending() {
            return number(status.pending());
        }

        public String getDueNow() {
            return number(status.dueNow());
        }

        public String getFailing() {
            return number(status.failing());
        }

        public String getOldestDueAge() {
            return status.dueNow() == 0 ? "–" : age(status.oldestDueAge());
        }

        public String getOldestDueSeconds() {
            return status.oldestDueAge().toSeconds() + " s";
        }

        public String getLastError() {
            return status.lastError() == null ? "" : status.lastError();
        }

        public boolean isPaused() {
            return status.paused();
        }

        public String getRebuild() {
            RebuildProgress run = status.latestRebuild();
            if (run == null) {
                return "–";
            }
            if (RebuildProgress.RUNNING.equals(run.state())) {
                return "running: " + number(run.marked()) + " marked, " + number(run.remaining()) + " remaining";
            }
            return run.state().toLowerCase(Locale.ROOT) + " " + ago(run.finishedAt());
        }

        public String getRebuildTitle() {
            RebuildProgress run = status.latestRebuild();
            return run == null ? "" : "run " + run.runId() + ", started " + TIME.format(run.startedAt())
                    + (run.finishedAt() == null ? "" : ", finished " + TIME.format(run.finishedAt()));
        }
    }

    @Inject
    transient Projections projections;

    private List<Row> rows;
    private Instant checkedAt;

    public List<Row> getRows() {
        if (rows == null) {
            reload();
        }
        return rows;
    }

    public boolean isNothingWaiting() {
        return getRows().stream().allMatch(row -> row.status.pending() == 0);
    }

    public String getCheckedAt() {
        return checkedAt == null ? "" : TIME.format(checkedAt);
    }

    /** The "Refresh" button and the page's timer: reads the table again. */
    public void reload() {
        rows = projections.overview().stream().map(Row::new).toList();
        checkedAt = Instant.now();
    }

    static String number(long value) {
        return NumberFormat.getIntegerInstance(Locale.ENGLISH).format(value);
    }

    static String age(Duration age) {
        long seconds = age.toSeconds();
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min";
        }
        return seconds / 3600 + " h " + (seconds % 3600) / 60 + " min";
    }

    static String ago(Instant instant) {
        return instant == null ? "" : age(Duration.between(instant, Instant.now())) + " ago";
    }
}
