package dev.projections.bench;

import dev.projections.bench.db.BenchDatabase;
import dev.projections.bench.workload.OrderWorkload;
import dev.projections.bench.workload.ReadModelCheck;
import dev.projections.refresh.AdjustableClock;
import dev.projections.store.Tables;
import java.util.Collection;

/** What every scenario works with: the options, the database and its workload, the real store and the clock. */
public record BenchContext(BenchOptions options, BenchDatabase database, OrderWorkload workload, Tables store,
                           AdjustableClock clock) {

    public int runs() {
        return options.runs();
    }

    /** After a drain: nothing may be left pending, and every order's row must be what its write tables say. */
    public void checkDrained(ScenarioReport report, String phase) throws Exception {
        checkNothingPending(report, phase);
        report.readModelChecked(phase, ReadModelCheck.differences(database));
    }

    /** The same for some orders only (a phase that touched only those). */
    public void checkDrained(ScenarioReport report, String phase, Collection<Long> orderIds) throws Exception {
        checkNothingPending(report, phase);
        report.readModelChecked(phase, ReadModelCheck.differences(database, orderIds));
    }

    private void checkNothingPending(ScenarioReport report, String phase) throws Exception {
        long left = workload.pending();
        if (left != 0) {
            report.problem(left + " marks left pending after " + phase);
        }
    }

    public static double perSecond(long count, long nanos) {
        return count / (nanos / 1e9);
    }
}
