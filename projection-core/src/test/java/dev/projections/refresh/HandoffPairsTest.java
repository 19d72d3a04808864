package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A commit that marks two projections (docs/design.md D60): the turn of one lone key takes the other projection's lone
 * key of the same commit as its companion, to share its transaction, when both projections pair; it holds one of that
 * projection's workers as any turn does, and both end together. No helper is reserved for a lane the companion
 * emptied. Anything else than two lone keys of one tenant, owing no look, goes turn by turn as before. On a clock the
 * test holds still (no linger, no keep-alive).
 */
class HandoffPairsTest {

    private static final Set<String> ALL = Set.of("orders", "customers", "slow");
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private static MarkKey key(String projection, String tenant, int i) {
        return new MarkKey(projection, tenant, String.valueOf(i));
    }

    private static MarkKey key(String projection, int i) {
        return key(projection, "", i);
    }

    /** Four workers, customers capped at one; orders and customers pair, slow does not. */
    private Handoff handoff() {
        Map<String, Integer> caps = Map.of("customers", 1);
        Handoff handoff = new Handoff(1000, 4, Duration.ZERO, Duration.ZERO, nanos::get,
                projection -> caps.getOrDefault(projection, 4), projection -> 10);
        handoff.pairLoneKeys(projection -> !projection.equals("slow"));
        return handoff;
    }

    private static Slot running(Handoff handoff) {
        Slot slot = handoff.tryReserve();
        assertThat(slot.run()).isTrue();
        return slot;
    }

    @Test
    void aCommitOfTwoProjectionsLoneKeysIsOneTurnWithACompanionAndNoHelper() {
        Handoff handoff = handoff();
        Slot slot = running(handoff);
        handoff.offer(List.of(key("orders", 1), key("customers", 7)));

        Turn turn = slot.nextTurn(true, ALL);

        assertThat(turn.keys()).containsExactly(key("orders", 1));
        assertThat(turn.companion()).isNotNull();
        assertThat(turn.companion().keys()).containsExactly(key("customers", 7));
        assertThat(turn.companion().lookOwed()).isFalse();
        assertThat(turn.helper()).as("no lane left waiting for a drainer").isNull();
        assertThat(handoff.inFlight()).isEqualTo(1);
        assertThat(handoff.busy("customers")).as("the companion holds one of its workers").isEqualTo(1);
        assertThat(handoff.waiting()).isZero();

        turn.end();

        assertThat(handoff.busy("orders")).isZero();
        assertThat(handoff.busy("customers")).as("ended with its turn").isZero();
    }

    @Test
    void aCompanionIsNeverTakenFromALaneAtItsCap() {
        Handoff handoff = handoff();
        handoff.offer(List.of(key("customers", 1)));
        Turn customers = running(handoff).nextTurn(false, ALL);
        handoff.offer(List.of(key("orders", 1), key("customers", 2)));

        Turn orders = running(handoff).nextTurn(false, ALL);

        assertThat(orders.projection()).isEqualTo("orders");
        assertThat(orders.companion()).as("customers has its one drainer").isNull();
        customers.end();
        orders.end();
    }

    @Test
    void keysOfTwoTenantsGoTurnByTurn() {
        Handoff handoff = handoff();
        handoff.offer(List.of(key("orders", "acme", 1), key("customers", "globex", 7)));

        Turn turn = running(handoff).nextTurn(false, ALL);

        assertThat(turn.companion()).isNull();
    }

    @Test
    void aLaneWithMoreThanOneKeyIsNoCompanion() {
        Handoff handoff = handoff();
        handoff.offer(List.of(key("orders", 1), key("customers", 7), key("customers", 8)));

        Turn turn = running(handoff).nextTurn(false, ALL);

        assertThat(turn.projection()).isEqualTo("orders");
        assertThat(turn.companion()).isNull();
    }

    @Test
    void aTurnOfMoreThanOneKeyTakesNoCompanion() {
        Handoff handoff = handoff();
        handoff.offer(List.of(key("orders", 1), key("orders", 2), key("customers", 7)));

        Turn turn = running(handoff).nextTurn(false, ALL);

        assertThat(turn.keys()).hasSize(2);
        assertThat(turn.companion()).isNull();
    }

    @Test
    void aLaneThatOwesALookIsNoCompanionNorTakesOne() {
        Handoff handoff = handoff();
        handoff.offer(List.of(key("orders", 1), key("customers", 7)));
        handoff.askForDueLook(Set.of("customers"));

        Turn turn = running(handoff).nextTurn(false, ALL);

        assertThat(turn.projection()).isEqualTo("orders");
        assertThat(turn.companion()).isNull();
        turn.end();
        handoff.askForDueLook(Set.of("orders"));
        handoff.offer(List.of(key("orders", 2)));
        Turn owing = running(handoff).nextTurn(false, ALL);
        assertThat(owing.projection()).isEqualTo("customers");
        assertThat(owing.lookOwed()).isTrue();
        assertThat(owing.companion()).isNull();
    }

    @Test
    void aProjectionThatDoesNotPairGoesTurnByTurn() {
        Handoff handoff = handoff();
        handoff.offer(List.of(key("slow", 1), key("orders", 1)));

        Turn first = running(handoff).nextTurn(false, ALL);

        assertThat(first.companion()).isNull();
    }

    @Test
    void withoutPairingEveryTurnIsOneProjections() {
        Handoff handoff = new Handoff(1000, 4);
        handoff.offer(List.of(key("orders", 1), key("customers", 7)));

        Turn turn = running(handoff).nextTurn(false, ALL);

        assertThat(turn.companion()).isNull();
    }

    @Test
    void aPausedProjectionsKeyIsNoCompanion() {
        Handoff handoff = handoff();
        handoff.offer(List.of(key("orders", 1), key("customers", 7)));

        Turn turn = running(handoff).nextTurn(true, Set.of("orders"));

        assertThat(turn.companion()).isNull();
    }
}
