package dev.projections.console;

import dev.projections.Projections;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** The overview: every deployed projection with its pending marks. */
@Named
@ViewScoped
public class Overview implements Serializable {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    /** One projection's line (a class with getters: Jakarta EL 5 does not read record components). */
    public static final class Row implements Serializable {
        private final String projection;
        private final long pending;

        Row(String projection, long pending) {
            this.projection = projection;
            this.pending = pending;
        }

        public String getProjection() {
            return projection;
        }

        public long getPending() {
            return pending;
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

    public String getCheckedAt() {
        return checkedAt == null ? "" : TIME.format(checkedAt);
    }

    /** The "Refresh" button: reads the counts again. */
    public void reload() {
        rows = projections.names().stream().map(name -> new Row(name, projections.pending(name))).toList();
        checkedAt = Instant.now();
    }
}
