package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import jakarta.inject.Inject;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;
import java.time.Instant;
import java.util.List;

/**
 * The rebuild runs, newest first (docs/contract.md §7, §12): a GET page, {@code rebuilds.xhtml?projection=…} for one
 * projection's, so a view can be bookmarked and shared.
 */
@Named("projectionsRebuilds")
@RequestScoped
public class RebuildsPage {

    /** Runs listed: enough for weeks of rebuilds; older ones stay in the table. */
    static final int LINES = 200;

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleClock clock;

    private String projection;
    private List<RebuildLine> lines;

    public String getProjection() {
        return projection;
    }

    public void setProjection(String projection) {
        this.projection = projection == null || projection.isBlank() ? null : projection;
    }

    public List<RebuildLine> getLines() {
        if (lines == null) {
            Instant now = clock.now();
            lines = reads.rebuildHistory(projection, LINES).stream().map(run -> new RebuildLine(run, now)).toList();
        }
        return lines;
    }

    /** The projections that have runs, for the filter links. */
    public List<String> getProjections() {
        return reads.overview().stream().map(dev.projections.ProjectionStatus::projection).sorted().toList();
    }
}
