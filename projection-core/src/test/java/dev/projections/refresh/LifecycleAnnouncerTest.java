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
        }, stats, Clock.systemUTC(), runnable -> new Thread(runnable).start());
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
                Clock.systemUTC(), runnable -> new Thread(runnable).start());
        announcer.stop();
        announcer.announce(resumed("orders"));
        assertThat(told.getCount()).isEqualTo(1);
    }

    @Test
    void aStopTellsWhatWasQueuedBeforeIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        java.util.List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        LifecycleAnnouncer announcer = new LifecycleAnnouncer(event -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            told.add(event.projection());
        }, new EngineStats(), Clock.systemUTC(), runnable -> new Thread(runnable).start());
        announcer.announce(resumed("first"));
        announcer.announce(resumed("second"));
        Thread stopping = new Thread(announcer::stop);
        stopping.start();
        release.countDown();
        stopping.join(10_000);

        assertThat(told).containsExactly("first", "second");
    }

    @Test
    void anErrorThatEndsTheLoopIsCountedNowhereButTheNextEventStartsItAgain() throws Exception {
        java.util.concurrent.BlockingQueue<String> told = new java.util.concurrent.LinkedBlockingQueue<>();
        LifecycleAnnouncer announcer = new LifecycleAnnouncer(event -> {
            if (event.projection().equals("fatal")) {
                throw new StackOverflowError("an observer that recursed for ever");
            }
            told.add(event.projection());
        }, new EngineStats(), Clock.systemUTC(), runnable -> {
            Thread thread = new Thread(runnable);
            thread.setUncaughtExceptionHandler((t, e) -> { }); // the error ends the loop's thread, quietly here
            thread.start();
        });
        try {
            announcer.announce(resumed("fatal"));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String next = null;
            while (next == null && System.nanoTime() < until) {
                announcer.announce(resumed("after"));
                next = told.poll(100, TimeUnit.MILLISECONDS);
            }
            assertThat(next).as("told on a loop started again").isEqualTo("after");
        } finally {
            announcer.stop();
        }
    }

    private static LifecycleEvent resumed(String projection) {
        return new ProjectionResumed(projection, "operator", Instant.now());
    }
}
