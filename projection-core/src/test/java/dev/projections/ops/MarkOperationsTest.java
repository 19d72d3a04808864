package dev.projections.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.FailedRefresh;
import dev.projections.MarkKey;
import dev.projections.ParkedSelection;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retry, resume and skip as every caller reaches them (docs/contract.md §2, §6), on H2 without a server. */
class MarkOperationsTest {

    @Test
    void aRetryMakesTheFailingMarkDueNowKeepsItsAttemptsAndAnnouncesIt() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-retry");
        MarkKey key = db.mark("orders", "7");
        db.fail(key, 2, "boom", false);

        db.marks().retry("orders", "", "7", "alice");

        assertThat(db.row(key)).containsExactly(2, db.clock.instant());
        assertThat(db.madeDue).hasValue(1);
        assertThat(db.marks().failing("orders")).as("still counted failing until refreshed").isEqualTo(1);
    }

    @Test
    void aRetryOfAKeyWithoutAFailingMarkIsRefusedNamingTheKeyAndAnnouncesNothing() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-retry-none");
        db.mark("orders", "8"); // pending, never failed

        assertThatThrownBy(() -> db.marks().retry("orders", "", "8", "alice"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no failing mark").hasMessageContaining("8");
        assertThat(db.madeDue).hasValue(0);
    }

    @Test
    void retryFailedMakesEveryFailingMarkDueButLeavesParkedOnesParked() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-retry-failed");
        MarkKey failing = db.mark("orders", "1");
        MarkKey parked = db.mark("orders", "2");
        db.fail(failing, 1, "boom", false);
        db.fail(parked, 5, "gave up", true);

        assertThat(db.marks().retryFailed("orders", "alice")).isEqualTo(1);
        assertThat(db.row(failing)[1]).isEqualTo(db.clock.instant());
        assertThat(db.row(parked)[1]).isEqualTo(dev.projections.store.PendingQueue.PARKED_UNTIL);
        assertThat(db.madeDue).hasValue(1);
        assertThat(db.marks().retryFailed("orders", "alice")).as("nothing failing and unparked is left due later").isEqualTo(1);
    }

    @Test
    void parkedMarksAreResumedKeepingTheirAttemptsOrSkippedReturningWhatTheyWere() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-parked");
        MarkKey resumed = db.mark("orders", "1");
        MarkKey skipped = db.mark("customers", "2");
        db.fail(resumed, 5, "gave up", true);
        db.fail(skipped, 3, "no such customer", true);
        assertThat(db.marks().parked("orders")).isEqualTo(1);

        assertThat(db.marks().resumeParked(ParkedSelection.all("orders"), "bob")).isEqualTo(1);
        assertThat(db.row(resumed)).containsExactly(5, db.clock.instant());
        assertThat(db.madeDue).hasValue(1);

        assertThat(db.marks().skipParked(ParkedSelection.all("customers"), "bob")).isEqualTo(1);
        assertThat(db.audit()).last().isEqualTo(java.util.Arrays.asList("bob", "skip-parked", "customers", "", "2",
                "after 3 attempts: no such customer"));
        assertThat(db.row(skipped)).isNull();
        assertThat(db.madeDue).as("a skip makes nothing due").hasValue(1);
    }

    @Test
    void badArgumentsAreRefusedNamingTheValueBeforeAnySqlRuns() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-arguments");
        MarkOperations marks = db.marks();

        assertThatThrownBy(() -> marks.retryFailed("ordrs", "alice")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown projection \"ordrs\"").hasMessageContaining("customers")
                .hasMessageContaining("orders");
        assertThatThrownBy(() -> marks.retry("orders", null, "1", "alice")).hasMessageContaining("tenant must not be null");
        assertThatThrownBy(() -> marks.retry("orders", "", " ", "alice")).hasMessageContaining("is blank");
        assertThatThrownBy(() -> marks.failures("orders", 0)).hasMessageContaining("limit must be >= 1, was 0");
        assertThatThrownBy(() -> marks.resumeParked(null, "alice")).hasMessageContaining("selection must not be null");
        assertThatThrownBy(() -> marks.skipParked(ParkedSelection.all("nope"), "alice")).hasMessageContaining("\"nope\"");
        assertThat(db.sqlCalls).hasValue(0);
    }
}
