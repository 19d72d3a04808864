package dev.projections.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.IdleWait;
import dev.projections.MarkKey;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The facade's awaitIdle and refreshNow as core does them (docs/contract.md §14, "Test support"), on H2. */
class CatchUpTest {

    private final List<Set<String>> drainsAsked = new ArrayList<>();

    @Test
    void awaitIdleReturnsOnceTheLastMarkIsGoneAndCountsNothingLeft() throws Exception {
        OperationsDatabase db = new OperationsDatabase("catch-up-idle");
        MarkKey key = db.mark("orders", "1");
        CatchUp catchUp = db.catchUp(Settings.defaults(), drainsAsked);
        CountDownLatch waiting = new CountDownLatch(1);

        CompletableFuture<IdleWait> wait = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            return catchUp.awaitIdle(Set.of("orders"), Duration.ofSeconds(30));
        });
        waiting.await();
        delete(db, key); // the refresh's ack

        IdleWait idle = wait.get(30, TimeUnit.SECONDS);
        assertThat(idle.idle()).isTrue();
        assertThat(idle.pending()).containsExactly(Map.entry("orders", 0L));
    }

    @Test
    void awaitIdleThatTimesOutSaysWhatIsLeftOfEachProjection() throws Exception {
        OperationsDatabase db = new OperationsDatabase("catch-up-timeout");
        db.fail(db.mark("orders", "1"), 1, "boom", false);
        db.fail(db.mark("orders", "2"), 5, "gave up", true);
        CatchUp catchUp = db.catchUp(Settings.defaults(), drainsAsked);

        IdleWait left = catchUp.awaitIdle(catchUp.namedOrAll(), Duration.ZERO);

        assertThat(left.idle()).isFalse();
        assertThat(left.pending()).containsEntry("orders", 2L).containsEntry("customers", 0L);
        assertThat(left.failing()).containsEntry("orders", 2L);
        assertThat(left.parked()).containsEntry("orders", 1L);
    }

    @Test
    void refreshNowMakesFailingMarksDueAndAsksForADrainerOfTheNamedProjections() throws Exception {
        OperationsDatabase db = new OperationsDatabase("catch-up-refresh-now");
        MarkKey failing = db.mark("orders", "1");
        db.fail(failing, 2, "boom", false);
        CatchUp catchUp = db.catchUp(Settings.defaults(), drainsAsked);

        assertThat(catchUp.refreshNow(catchUp.namedOrAll("orders"), "tests")).isEqualTo(1);

        assertThat(db.row(failing)[1]).isEqualTo(db.clock.instant());
        assertThat(drainsAsked).containsExactly(Set.of("orders"));
    }

    @Test
    void refreshNowIsRefusedWhereNothingRefreshesAndAnUnknownNameIsRefusedByName() throws Exception {
        OperationsDatabase db = new OperationsDatabase("catch-up-refused");
        CatchUp off = db.catchUp(Settings.load(SettingSource.of(Map.of(Settings.AUTO_REFRESH, "false"))), drainsAsked);

        assertThatThrownBy(() -> off.refreshNow(Set.of("orders"), "tests")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("projection.auto-refresh");
        assertThatThrownBy(() -> off.namedOrAll("orders", "invoices")).isInstanceOf(UnknownProjection.class)
                .hasMessageContaining("invoices");
        assertThatThrownBy(() -> off.awaitIdle(Set.of("orders"), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
        assertThat(drainsAsked).isEmpty();
    }

    private static void delete(OperationsDatabase db, MarkKey key) throws Exception {
        try (Connection connection = db.connect(); PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM projection_pending WHERE projection = ? AND entity_id = ?")) {
            delete.setString(1, key.projection());
            delete.setString(2, key.entityId());
            assertThat(delete.executeUpdate()).isEqualTo(1);
        }
    }
}
