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

/** One rebuild run ({@code rebuild.xhtml?run=…}): its progress, its partitions, a link to its failing marks, Cancel. */
@Named("projectionsRebuild")
@ViewScoped
public class RebuildPage implements Serializable {

    /** One partition's line (getters for EL). */
    public static final class Part implements Serializable {
        private final PartitionProgress partition;
        private final boolean running;
        private final Instant now;

        Part(PartitionProgress partition, boolean running, Instant now) {
            this.partition = partition;
            this.running = running;
            this.now = now;
        }

        public int getNumber() {
            return partition.number();
        }

        /** "after 400 up to 700", "up to 400", "after 700", "every id". */
        public String getRange() {
            if (partition.after() == null) {
                return partition.upTo() == null ? Text.of("run.partition.every-id")
                        : Text.of("run.partition.up-to", partition.upTo());
            }
            return partition.upTo() == null ? Text.of("run.partition.after", partition.after())
                    : Text.of("run.partition.between", partition.after(), partition.upTo());
        }

        public String getCursor() {
            return partition.cursor() == null ? Text.of("run.partition.start") : partition.cursor();
        }

        public String getMarked() {
            return Format.number(partition.marked());
        }

        public String getState() {
            if (partition.exhausted()) {
                return Text.of("run.partition.exhausted");
            }
            if (!running) {
                return Text.of("run.partition.stopped");
            }
            return partition.held() && partition.leaseUntil() != null && partition.leaseUntil().isAfter(now)
                    ? Text.of("run.partition.stepping", Format.relative(partition.leaseUntil(), now))
                    : Text.of("run.partition.waiting");
        }

        public int getTakeovers() {
            return partition.takeovers();
        }
    }

    @Inject // not @EJB: Payara leaves @EJB fields of a web-fragment jar null (docs/pitfalls.md #66)
    ConsoleReads reads;

    @Inject // not @EJB: Payara leaves @EJB fields of a web-fragment jar null (docs/pitfalls.md #66)
    ConsoleAdmin admin;

    @Inject
    ConsoleClock clock;

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
            Messages.error(Text.of("rebuild.no-run"));
            return;
        }
        Instant now = clock.now();
        java.util.Optional<RebuildProgress> progress = reads.findRebuild(runId);
        if (progress.isEmpty()) {
            Messages.error(Text.of("rebuild.unknown-run", runId));
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
        Messages.run(() -> admin.cancelRebuild(runId), Text.of("rebuild.cancelled"));
        open();
    }
}
