package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When drainers leave the due claim out (docs/design.md D41), on a clock the test moves. */
class DueLookTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final DueLook look = new DueLook(nanos::get);

    @Test
    void aShortLookKeepsDrainersFromLookingForTheInterval() {
        assertThat(look.wanted()).as("nothing looked yet").isTrue();
        look.looked(look.begin(), 3, 10);
        assertThat(look.wanted()).isFalse();

        nanos.addAndGet(DueLook.INTERVAL.toNanos());

        assertThat(look.wanted()).isTrue();
    }

    @Test
    void aFullLookKeepsThemLooking() {
        look.looked(look.begin(), 10, 10);
        assertThat(look.wanted()).isTrue();
    }

    @Test
    void somethingGivenBackMakesTheNextClaimLook() {
        look.looked(look.begin(), 0, 10);
        look.lookAgain();
        assertThat(look.wanted()).isTrue();
    }

    @Test
    void aLookThatBeganBeforeSomethingWasGivenBackCannotCallTheQueueQuiet() {
        long begun = look.begin(); // a drainer's claim starts; its query cannot see what is given back later
        look.lookAgain(); // another drainer's ack marked a key again meanwhile

        look.looked(begun, 0, 10);

        assertThat(look.wanted()).as("the re-marked key is looked for").isTrue();
    }
}
