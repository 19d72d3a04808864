package dev.projections.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.ProjectionResumed;
import dev.projections.lifecycle.ProjectionSuspended;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
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

    @Test
    void aSuspensionAndAResumeThatEndsAPauseAreToldAResumeOfARunningProjectionIsNot() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-pause-events");
        List<LifecycleEvent> told = new ArrayList<>();
        PauseOperations pauses = db.pauses(told::add);

        pauses.resume("orders", "alice");
        assertThat(told).as("it was running").isEmpty();
        pauses.suspend("orders", "search cluster down", "alice");
        pauses.resume("orders", "bob");
        pauses.pause("orders", "carol");
        pauses.resume("orders", "dave");
        assertThat(told).extracting(e -> e.getClass().getSimpleName()).containsExactly("ProjectionSuspended",
                "ProjectionResumed", "ProjectionResumed");
        assertThat(told.get(0)).isEqualTo(new ProjectionSuspended("orders", "search cluster down", "alice",
                db.clock.instant()));
        assertThat(((ProjectionResumed) told.get(1)).by()).isEqualTo("bob");
        assertThat(((ProjectionResumed) told.get(2)).by()).isEqualTo("dave");
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
