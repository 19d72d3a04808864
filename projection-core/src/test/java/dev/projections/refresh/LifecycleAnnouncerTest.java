package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.ProjectionResumed;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The announcer's own thread: the announcing thread never waits for an observer, and a backlog is bounded. */
class LifecycleAnnouncerTest {

    @Test
    void anObserverSoSlowThatTheQueueIsFullLosesTheNextEventsCountedAndTheAnnouncingThreadNeverWaits() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        EngineStats stats = new EngineStats();
        LifecycleAnnouncer announcer = new LifecycleAnnouncer(event -> {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, stats, Clock.systemUTC(), Thread::new);
        try {
            announcer.announce(resumed("first")); // taken by the delivery thread, which then blocks
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < LifecycleAnnouncer.QUEUE_BOUND; i++) {
                announcer.announce(resumed("orders"));
            }
            assertThat(stats.listenerFailures("orders")).isZero();
            announcer.announce(resumed("orders"));
            announcer.announce(resumed("orders"));
            assertThat(stats.listenerFailures("orders")).as("the two beyond the bound").isEqualTo(2);
        } finally {
            release.countDown();
            announcer.stop();
        }
    }

    @Test
    void afterStopNothingIsToldAndAnnouncingStillReturns() {
        CountDownLatch told = new CountDownLatch(1);
        LifecycleAnnouncer announcer = new LifecycleAnnouncer(event -> told.countDown(), new EngineStats(),
                Clock.systemUTC(), Thread::new);
        announcer.stop();
        announcer.announce(resumed("orders"));
        assertThat(told.getCount()).isEqualTo(1);
    }

    private static LifecycleEvent resumed(String projection) {
        return new ProjectionResumed(projection, "operator", Instant.now());
    }
}
