package dev.projections.console;

import dev.projections.RebuildProgress;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.store.RebuildPartition;
import jakarta.inject.Inject;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;

/** One rebuild run ({@code rebuild.xhtml?run=…}): its progress, its partitions, a link to its failing marks, Cancel. */
@Named("projectionsRebuildRun")
@ViewScoped
public class RebuildRunPage implements Serializable {

    /** One partition's line (getters for EL). */
    public static final class Part implements Serializable {
        private final RebuildPartition partition;
        private final boolean running;
        private final Instant now;

        Part(RebuildPartition partition, boolean running, Instant now) {
            this.partition = partition;
            this.running = running;
            this.now = now;
        }

        public int getNumber() {
            return partition.number();
        }

        /** "after 400 up to 700", "up to 400", "after 700", "every id". */
        public String getRange() {
            String after = partition.after() == null ? "" : "after " + partition.after();
            String upTo = partition.upTo() == null ? "" : "up to " + partition.upTo();
            String range = (after + " " + upTo).trim();
            return range.isEmpty() ? "every id" : range;
        }

        public String getCursor() {
            return partition.cursor() == null ? "(start)" : partition.cursor();
        }

        public String getMarked() {
            return Format.number(partition.marked());
        }

        public String getState() {
            if (partition.exhausted()) {
                return "all ids marked";
            }
            if (!running) {
                return "stopped";
            }
            return partition.held() && partition.leaseUntil() != null && partition.leaseUntil().isAfter(now)
                    ? "stepping (lease " + Format.relative(partition.leaseUntil(), now) + ")" : "waiting for a drainer";
        }

        public int getTakeovers() {
            return partition.takeovers();
        }
    }

    @Inject // not @EJB: Payara leaves @EJB fields of a web-fragment jar null (docs/pitfalls.md #66)
    ConsoleReads reads;

    @Inject // not @EJB: Payara leaves @EJB fields of a web-fragment jar null (docs/pitfalls.md #66)
    ConsoleAdmin admin;

    private String runId;
    private RebuildLine run;
    private List<Part> partitions = List.of();
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
            Messages.error("No run given: open a run from the rebuild history.");
            return;
        }
        Instant now = Instant.now();
        java.util.Optional<RebuildProgress> progress = reads.findRebuild(runId);
        if (progress.isEmpty()) {
            Messages.error("There is no rebuild run \"" + runId + "\".");
            return;
        }
        run = new RebuildLine(progress.get(), now);
        boolean running = run.isRunning();
        partitions = reads.rebuildPartitions(runId).stream().map(p -> new Part(p, running, now)).toList();
    }

    public RebuildLine getRun() {
        return run;
    }

    public List<Part> getPartitions() {
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
        Messages.run(() -> admin.cancelRebuild(runId), "run cancelled: its partitions stop and its rebuild marks are "
                + "being deleted; marks of live changes stay");
        open();
    }
}
