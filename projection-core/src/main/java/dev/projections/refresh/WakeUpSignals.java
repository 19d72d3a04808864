package dev.projections.refresh;

import dev.projections.store.CommitSignals;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What an instance signals to the others in the transactions it commits (docs/design.md D55): that the transaction
 * wrote marks, so that an idle processing instance takes them at once rather than at its next look or sweep; and that
 * it started a rebuild run, so that the processing instances step it at once. On PostgreSQL only ({@link
 * CommitSignals}); sent with the transaction's marks, one statement per transaction, and only when another live
 * instance processes marks (a single instance's own drainers already have its commits' keys) — counted at the last
 * sweep; before the first count a web node signals and a processing instance does not. A payload names its kind and
 * its sender, whose own listener ignores it.
 */
public final class WakeUpSignals {

    static final String MARKS = "marks";
    static final String REBUILD = "rebuild";

    private final CommitSignals signals;
    private final String self;
    private final boolean processing;
    private final EngineStats stats;

    public WakeUpSignals(CommitSignals signals, String self, boolean processing, EngineStats stats) {
        this.signals = signals;
        this.self = self;
        this.processing = processing;
        this.stats = stats;
    }

    /** In the transaction that wrote marks, on its connection. */
    public void marksWritten(Connection connection) throws SQLException {
        if (signals.supported() && othersProcess()) {
            signals.send(connection, MARKS + " " + self);
        }
    }

    /** In the transaction that started a rebuild run, on its connection (rare: always signalled). */
    public void rebuildStarted(Connection connection) throws SQLException {
        if (signals.supported()) {
            signals.send(connection, REBUILD + " " + self);
        }
    }

    /** Whether another live instance processes marks, as last counted. */
    boolean othersProcess() {
        ProcessingCount count = stats.processing();
        if (count == null) {
            return !processing;
        }
        return count.instances() > (processing ? 1 : 0);
    }

    /** The signals this instance's listener hears. */
    public CommitSignals signals() {
        return signals;
    }

    /** A payload as this instance's listener reads it: whether it asks to look for rebuild runs, or for nothing. */
    public enum Heard {
        OWN, MARKS, REBUILD;
    }

    Heard heard(String payload) {
        int space = payload.indexOf(' ');
        String kind = space < 0 ? payload : payload.substring(0, space);
        String sender = space < 0 ? "" : payload.substring(space + 1);
        if (sender.equals(self)) {
            return Heard.OWN;
        }
        return REBUILD.equals(kind) ? Heard.REBUILD : Heard.MARKS;
    }
}
