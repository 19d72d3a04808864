package dev.projections.console;

import dev.projections.RebuildProgress;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.PartitionProgress;
import jakarta.inject.Inject;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** One rebuild run ({@code rebuild.xhtml?run=…}): its progress, its partitions, a link to its failing marks, Cancel. */
@Named("projectionsRebuild")
@ViewScoped
public class RebuildPage implements Serializable {

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleAdmin admin;

    @Inject
    ConsoleClock clock;

    private String runId;
    private RebuildLine run;
    private List<PartitionLine> partitions = List.of();
    private boolean confirmingCancel;

    public String getRunId() {
        return runId;
    }

    public void setRunId(String runId) {
        this.runId = runId;
    }

    /** The view action: reads the run; an unknown id says so. */
    public void open() {
        run = null;
        partitions = List.of();
        if (runId == null || runId.isBlank()) {
            Text.error(Text.of("rebuild.no-run"));
            return;
        }
        Instant now = clock.now();
        Optional<RebuildProgress> progress = reads.findRebuild(runId);
        if (progress.isEmpty()) {
            Text.error(Text.of("rebuild.unknown-run", runId));
            return;
        }
        run = new RebuildLine(progress.get(), now);
        boolean running = run.isRunning();
        partitions = reads.rebuildPartitions(runId).stream().map(p -> new PartitionLine(p, running, now)).toList();
    }

    public RebuildLine getRun() {
        return run;
    }

    public List<PartitionLine> getPartitions() {
        return partitions;
    }

    public boolean isConfirmingCancel() {
        return confirmingCancel;
    }

    public void askCancel() {
        confirmingCancel = true;
    }

    public void keep() {
        confirmingCancel = false;
    }

    public void cancel() {
        confirmingCancel = false;
        Text.act(() -> admin.cancelRebuild(runId), Text.of("rebuild.cancelled"));
        open();
    }
}
