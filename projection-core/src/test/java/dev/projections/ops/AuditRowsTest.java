package dev.projections.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.ParkedSelection;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The actions and the audit row each leaves, under who acted (docs/contract.md §12), on H2 without a server. */
class AuditRowsTest {

    @Test
    void aRetryIsRecordedWithWhoActedAndTheKey() throws Exception {
        OperationsDatabase db = new OperationsDatabase("audit-retry");
        MarkKey key = db.mark("orders", "7");
        db.fail(key, 2, "boom", false);

        db.operations().marks().retry("orders", "", "7", "alice");

        assertThat(db.audit()).containsExactly(Arrays.asList("alice", "retry", "orders", "", "7", null));
        assertThat(db.madeDue).hasValue(1);
    }

    @Test
    void aRefusedActionLeavesNoAuditRow() throws Exception {
        OperationsDatabase db = new OperationsDatabase("audit-refused");
        db.mark("orders", "8"); // pending, never failed

        assertThatThrownBy(() -> db.operations().marks().retry("orders", "", "8", "alice"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no failing mark");
        assertThatThrownBy(() -> db.operations().marks().purge("orders", "alice"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("projection orders is deployed here: its marks are not purged");
        assertThatThrownBy(() -> db.operations().marks().purge(" ", "alice"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("purge needs a projection name, was  ");

        assertThat(db.audit()).isEmpty();
    }

    @Test
    void eachActionWritesItsRowOnItsOwnConnectionWithTheCountOrTheReason() throws Exception {
        OperationsDatabase db = new OperationsDatabase("audit-one-connection");
        db.fail(db.mark("orders", "1"), 2, "Timeout: search down", false);
        db.fail(db.mark("orders", "2"), 5, "gave up", true);

        assertThat(db.marks().retryFailed("orders", null, "Timeout", "dave")).isEqualTo(1);
        assertThat(db.marks().resumeParked(ParkedSelection.all("orders"), "dave")).isEqualTo(1);
        db.pauses().suspend("customers", "search cluster maintenance", "erin");

        assertThat(db.sqlCalls).as("one connection per action, its row beside it").hasValue(3);
        assertThat(db.audit()).containsExactly(
                Arrays.asList("dave", "retry-failed", "orders", null, null, "1 marks with error \"Timeout…\""),
                Arrays.asList("dave", "resume-parked", "orders", null, null, "1 marks"),
                Arrays.asList("erin", "suspend", "customers", null, null, "search cluster maintenance"));
    }

    @Test
    void skippingParkedMarksRecordsEachSkippedKeyWithItsLastError() throws Exception {
        OperationsDatabase db = new OperationsDatabase("audit-skip");
        db.fail(db.mark("orders", "1"), 5, "gave up", true);
        db.fail(db.mark("orders", "2"), 3, "no such order", true);

        int skipped = db.operations().marks().skipParked(ParkedSelection.all("orders"), "bob");

        assertThat(skipped).isEqualTo(2);
        assertThat(db.audit()).containsExactlyInAnyOrder(
                Arrays.asList("bob", "skip-parked", "orders", "", "1", "after 5 attempts: gave up"),
                Arrays.asList("bob", "skip-parked", "orders", "", "2", "after 3 attempts: no such order"));
    }

    @Test
    void pausesAndResumesAreRecordedAndTheRebuildNamesItsRun() throws Exception {
        OperationsDatabase db = new OperationsDatabase("audit-pause-rebuild");

        db.operations().pauses().pause("orders", "carol");
        db.operations().pauses().resume("orders", "carol");
        String runId = db.operations().audited().rebuild("carol", "orders", "", dev.projections.RebuildScope.everything(), 1);

        List<List<String>> audit = db.audit();
        assertThat(audit).hasSize(3);
        assertThat(audit.get(0)).containsExactly("carol", "pause", "orders", null, null, null);
        assertThat(audit.get(1)).containsExactly("carol", "resume", "orders", null, null, null);
        assertThat(audit.get(2)).containsExactly("carol", "rebuild", "orders", "", null, "everything, run " + runId);
    }

    /** The engine review's E9: a cancel commits on its own, so its audit row must commit with it, or neither. */
    @Test
    void aCancelWhoseAuditRowTheDatabaseRefusesLeavesTheRunRunning() throws Exception {
        OperationsDatabase db = new OperationsDatabase("audit-cancel-not-written");
        String runId = db.operations().audited().rebuild("carol", "orders", "", dev.projections.RebuildScope.everything(), 1);
        try (java.sql.Connection connection = db.connect(); java.sql.Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE projection_audit RENAME TO projection_audit_away");
        }

        assertThatThrownBy(() -> db.operations().audited().cancelRebuild("carol", runId))
                .isInstanceOf(AuditedRebuilds.AuditNotWritten.class)
                .hasMessageContaining("could not write the audit of cancel-rebuild");

        assertThat(db.rebuilds(null, Set.of()).progress(runId).state()).as("the cancel rolled back with its audit row")
                .isEqualTo(dev.projections.RebuildProgress.RUNNING);
        try (java.sql.Connection connection = db.connect(); java.sql.Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE projection_audit_away RENAME TO projection_audit");
        }
        db.operations().audited().cancelRebuild("carol", runId);
        assertThat(db.rebuilds(null, Set.of()).progress(runId).state())
                .isEqualTo(dev.projections.RebuildProgress.CANCELLED);
        assertThat(db.audit().get(db.audit().size() - 1)).startsWith("carol", "cancel-rebuild", "orders", "");
    }

    @Test
    void anAuditRowTheDatabaseRefusesFailsTheActionAsTheDatabasesFailureNamingIt() throws Exception {
        OperationsDatabase db = new OperationsDatabase("audit-not-written");
        try (java.sql.Connection connection = db.connect(); java.sql.Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE projection_audit RENAME TO projection_audit_away");
        }

        // the faces tell a refusal (a bad argument, a state that forbids the action) from the database's failure
        assertThatThrownBy(() -> db.operations().pauses().pause("orders", "carol"))
                .isInstanceOf(DatabaseFailure.class)
                .hasMessageContaining("could not pause orders");
        assertThatThrownBy(() -> db.operations().audited().rebuild("carol", "orders", "", dev.projections.RebuildScope.everything(), 1))
                .isInstanceOf(AuditedRebuilds.AuditNotWritten.class)
                .hasMessageContaining("could not write the audit of rebuild");
    }
}
