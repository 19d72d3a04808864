package dev.projections.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import org.junit.jupiter.api.Test;

/** Pause, suspend and resume as every caller reaches them (docs/contract.md §2), on H2 without a server. */
class PauseOperationsTest {

    @Test
    void aPauseIsRecordedWithItsCallerAndAResumeMakesTheBacklogDue() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-pause");
        PauseOperations pauses = db.pauses();

        pauses.pause("orders", "alice");
        assertThat(pauses.isPaused("orders")).isTrue();
        assertThat(pauses.isPaused("customers")).isFalse();
        assertThat(pausedBy(db, "orders")).isEqualTo("alice");
        assertThat(db.pausesChanged).hasValue(1);
        assertThat(db.madeDue).hasValue(0);

        pauses.resume("orders", "bob");
        assertThat(pauses.isPaused("orders")).isFalse();
        assertThat(pausedBy(db, "orders")).isEqualTo("bob");
        assertThat(db.pausesChanged).hasValue(2);
        assertThat(db.madeDue).hasValue(1);
    }

    @Test
    void aSuspensionNeedsAReasonAndIsAPauseWithItsReasonAndCaller() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-suspend");
        PauseOperations pauses = db.pauses();

        assertThatThrownBy(() -> pauses.suspend("orders", " ", "alice")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a suspension needs a reason of 1..1000 characters");
        assertThatThrownBy(() -> pauses.suspend("orders", "x".repeat(1001), "alice"))
                .hasMessageContaining("was 1001 characters");
        assertThat(db.sqlCalls).hasValue(0);

        pauses.suspend("orders", "search cluster down", "alice");
        assertThat(pauses.isPaused("orders")).isTrue();
        try (Connection connection = db.connect()) {
            assertThat(db.store.control().suspensions(connection)).containsKey("orders");
            assertThat(db.store.control().suspensions(connection).get("orders").reason()).isEqualTo("search cluster down");
            assertThat(db.store.control().suspensions(connection).get("orders").by()).isEqualTo("alice");
        }
        assertThatThrownBy(() -> pauses.pause("nope", "alice")).hasMessageContaining("unknown projection \"nope\"");
    }

    private static String pausedBy(OperationsDatabase db, String projection) throws Exception {
        try (Connection connection = db.connect();
             var select = connection.prepareStatement("SELECT paused_by FROM projection_control WHERE projection = ?")) {
            select.setString(1, projection);
            try (var rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }
}
