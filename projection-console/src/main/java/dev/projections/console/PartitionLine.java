package dev.projections.console;

import dev.projections.inspect.PartitionProgress;
import java.io.Serializable;
import java.time.Instant;

/** A line of the rebuild page: one partition of the run, its range, cursor and lease (getters for EL). */
public final class PartitionLine implements Serializable {
    private final PartitionProgress partition;
    private final boolean running;
    private final Instant now;

    PartitionLine(PartitionProgress partition, boolean running, Instant now) {
        this.partition = partition;
        this.running = running;
        this.now = now;
    }

    public int getNumber() {
        return partition.number();
    }

    /** "after 400 up to 700", "up to 400", "after 700", "every id", "the read model's own ids". */
    public String getRange() {
        if (partition.readModel()) {
            return Text.of("run.partition.read-model");
        }
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
