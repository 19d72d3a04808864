package dev.projections.refresh;

import dev.projections.store.CommitSignals;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.logging.Logger;

/**
 * What an instance signals to the others in the transactions it commits (docs/design.md D55): that the transaction
 * wrote marks, so that an idle processing instance takes them at once rather than at its next look or sweep; and that
 * it started a rebuild run, so that the processing instances step it at once. On PostgreSQL only ({@link
 * CommitSignals}), and only where {@code projection.listen-datasource} is set; sent with the transaction's marks, one statement per transaction: always from a web node, from a
 * processing instance only while its last count saw another live processing instance (a single instance's own
 * drainers already have its commits' keys). A processing instance also
 * signals, after a batch of refreshes committed, while it counts a live web node: that node's read-your-writes waits
 * check the queue at once. A payload names its kind and its sender, whose own listener ignores it.
 */
public final class WakeUpSignals {

    static final String MARKS = "marks";
    static final String REBUILD = "rebuild";
    static final String REFRESHED = "refreshed";

    private final CommitSignals signals;
    private final String self;
    private final boolean processing;
    private final boolean on;
    private final EngineStats stats;

    /**
     * @param on whether this instance signals at all: {@code projection.listen-datasource} is set (a team that did not
     *           opt in sends no {@code NOTIFY}, which PostgreSQL refuses in a transaction prepared for two-phase
     *           commit), and the database is PostgreSQL
     */
    public WakeUpSignals(CommitSignals signals, String self, boolean processing, boolean on, EngineStats stats) {
        this.signals = signals;
        this.self = self;
        this.processing = processing;
        this.on = on && signals.supported();
        this.stats = stats;
    }

    /** In the transaction that wrote marks, on its connection. */
    public void marksWritten(Connection connection) throws SQLException {
        if (signalsMarks()) {
            signals.send(connection, MARKS + " " + self);
        }
    }

    /** Whether {@link #marksWritten} sends anything now. */
    public boolean signalsMarks() {
        return on && othersProcess();
    }

    /** In the transaction that started a rebuild run, on its connection (rare: always signalled). */
    public void rebuildStarted(Connection connection) throws SQLException {
        if (on) {
            signals.send(connection, REBUILD + " " + self);
        }
    }

    /** Whether refreshes this instance committed are signalled: it processes, and a live web node is counted. */
    public boolean toWebNodes() {
        ProcessingCount count = stats.processing();
        return on && processing && count != null && count.webNodes() > 0;
    }

    /** In a transaction of its own after refreshes committed, so that the web nodes' waits check at once. */
    public void refreshed(Connection connection) throws SQLException {
        signals.send(connection, REFRESHED + " " + self);
    }

    /**
     * Tells the live web nodes that refreshes committed, so that their read-your-writes waits check the queue now
     * rather than at their next poll: one short transaction per batch, made only while a web node is counted. Its
     * failure is no refresh's: the waits poll anyway.
     */
    void refreshesCommitted(ShortTransactions transactions) {
        if (!toWebNodes()) {
            return;
        }
        try {
            transactions.run("signal the web nodes", connection -> {
                refreshed(connection);
                return null;
            });
        } catch (DatabaseTroubleException e) {
            Logger.getLogger(WakeUpSignals.class.getName()).fine(
                    "projection engine: the web nodes were not signalled: " + e.getMessage());
        }
    }

    /**
     * Whether another live instance may process these marks: always from a web node (it processes none, and a
     * processing instance that started since its last count is served too), from a processing instance while its last
     * count saw another.
     */
    boolean othersProcess() {
        ProcessingCount count = stats.processing();
        return !processing || count != null && count.instances() > 1;
    }

    /** This instance's name, which its signals carry. */
    String self() {
        return self;
    }

    /** The signals this instance's listener hears. */
    public CommitSignals signals() {
        return signals;
    }

    /**
     * A payload as this instance's listener reads it: its own, another's marks, another's rebuild start, or another's
     * refreshes (for read-your-writes waits).
     */
    public enum Heard {
        OWN, MARKS, REBUILD, REFRESHED;
    }

    Heard heard(String payload) {
        int space = payload.indexOf(' ');
        String kind = space < 0 ? payload : payload.substring(0, space);
        String sender = space < 0 ? "" : payload.substring(space + 1);
        if (sender.equals(self)) {
            return Heard.OWN;
        }
        return REBUILD.equals(kind) ? Heard.REBUILD : REFRESHED.equals(kind) ? Heard.REFRESHED : Heard.MARKS;
    }
}
