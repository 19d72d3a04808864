package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.CommitCapture;
import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RefreshOutcome;
import dev.projections.RefreshToken;
import dev.projections.RefreshWait;
import dev.projections.RefreshWait.Result;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.freshness.RefreshWaits;
import dev.projections.refresh.DrainerOrigin;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.store.LiquibaseSchema;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Read-your-writes waits (docs/contract.md §14) through assembled engines on one H2 database, with real drainer
 * threads: the projection's refreshes hold on gates the test opens, and the checks of the queue are counted, so no
 * sleep decides an outcome. A second engine stands for another instance, whose refreshes this one's waits learn of
 * only from the queue.
 */
class ReadYourWritesTest {

    private static final Duration LONG = Duration.ofSeconds(20);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    /** Each refresh of the projection takes the next gate and waits for it; none left: it runs at once. */
    private final BlockingQueue<CountDownLatch> gates = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> entered = new LinkedBlockingQueue<>();
    private final AtomicInteger refreshes = new AtomicInteger();
    private final BlockingQueue<RefreshOutcome> outcomes = new LinkedBlockingQueue<>();
    /** What each check of the queue answered, in order. */
    private final BlockingQueue<Set<MarkKey>> checks = new LinkedBlockingQueue<>();
    private final AtomicBoolean inTransaction = new AtomicBoolean();
    private JdbcDataSource dataSource;
    private Engine engine;
    private Engine otherInstance;
    private RefreshWaits waits;
    /** The engines' and the waits' clock (the system's, until a test moves it). */
    private final dev.projections.refresh.AdjustableClock clock = new dev.projections.refresh.AdjustableClock();
    /** The waits' margin for rows of another instance's clock; none by default (one process, one clock). */
    private Duration margin = Duration.ZERO;
    /** Whether commits are handed to this instance's drainers ({@code projection.auto-refresh}); else nothing refreshes here. */
    private boolean handOver = true;

    @BeforeEach
    void database() throws Exception {
        dataSource = new JdbcDataSource();
        dataSource.setURL(LiquibaseSchema.freshH2("read_your_writes"));
        dataSource.setUser("sa");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
    }

    @AfterEach
    void stop() throws Exception {
        CountDownLatch gate;
        while ((gate = gates.poll()) != null) {
            gate.countDown();
        }
        if (waits != null) {
            waits.stop();
        }
        for (Engine each : new Engine[] {engine, otherInstance}) {
            if (each != null) {
                each.stop();
            }
        }
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWaitEndsWhenARefreshHereWakesItNotAtItsNextPoll() throws Exception {
        start(new Settings.Awaits(8, LONG, Duration.ofMinutes(10)));
        CountDownLatch gate = gate();

        RefreshToken token = commitCaptured("1");
        assertThat(entered.poll(10, TimeUnit.SECONDS)).as("the refresh runs, held").isEqualTo("1");
        Future<RefreshWait> wait = threads.submit(() -> waits.await(token, LONG));
        // the first check and the four quick ones, then the poll of ten minutes: only a wake-up can end it now
        for (int i = 0; i < 5; i++) {
            assertThat(checks.poll(10, TimeUnit.SECONDS)).as("check %s while the refresh holds", i).containsExactly(key("1"));
        }
        assertThat(wait).isNotDone();

        gate.countDown();

        RefreshWait ended = wait.get(10, TimeUnit.SECONDS);
        assertThat(ended.result()).isEqualTo(Result.REFRESHED);
        assertThat(ended.notRefreshed()).isEmpty();
        assertThat(waits.count(Result.REFRESHED)).isOne();
    }

    /**
     * The race the queue's rule exists for: a refresh claimed before the commit reads the state before it, so its
     * end (a missed ack, here) wakes the waiter, which finds the key still waiting and waits for the next refresh.
     */
    @Test
    void aRefreshThatBeganBeforeTheCommitDoesNotEndItsWait() throws Exception {
        start(new Settings.Awaits(8, LONG, Duration.ofMinutes(10)));
        CountDownLatch first = gate();
        CountDownLatch second = gate();
        MarkKey key = Marks.mark(engine, "orders", "7");
        engine.drainers().committed(Set.of(key));
        assertThat(entered.poll(10, TimeUnit.SECONDS)).as("claimed before the commit, held").isEqualTo("7");

        RefreshToken token = commitCaptured("7");
        Future<RefreshWait> wait = threads.submit(() -> waits.await(token, LONG));
        assertThat(checks.poll(10, TimeUnit.SECONDS)).containsExactly(key);
        first.countDown();
        assertThat(outcomes.poll(10, TimeUnit.SECONDS)).as("the change came after the claim")
                .isEqualTo(RefreshOutcome.REPEATED);

        assertThat(nextCheckAfterAQuickOne()).as("woken by that refresh: still waiting").containsExactly(key);
        kickUntilEntered("7");
        assertThat(wait).as("the refresh that read the commit is held").isNotDone();
        second.countDown();

        assertThat(wait.get(10, TimeUnit.SECONDS).result()).isEqualTo(Result.REFRESHED);
        assertThat(refreshes).hasValue(2);
    }

    @Test
    void aRefreshOnAnotherInstanceEndsTheWaitThroughTheQueue() throws Exception {
        start(new Settings.Awaits(8, LONG, Duration.ofMillis(100)), "projection.auto-refresh", "false");
        otherInstance = engine("other-instance", Map.of());

        RefreshToken token = commitCaptured("3", "4");
        Future<RefreshWait> wait = threads.submit(() -> waits.await(token, LONG));
        assertThat(checks.poll(10, TimeUnit.SECONDS)).hasSize(2);
        otherInstance.drainers().startIfSlotFree(DrainerOrigin.SWEEP);

        RefreshWait ended = wait.get(10, TimeUnit.SECONDS);
        assertThat(ended.result()).isEqualTo(Result.REFRESHED);
        assertThat(refreshes).as("refreshed there, not here").hasValue(2);
    }

    @Test
    void aTimeoutIsAnAnswerNamingTheKeysNotRefreshed() throws Exception {
        start(new Settings.Awaits(8, LONG, Duration.ofMillis(100)), "projection.auto-refresh", "false");

        RefreshToken token = commitCaptured("5");
        RefreshWait ended = waits.await(token, Duration.ofMillis(300));

        assertThat(ended.result()).isEqualTo(Result.TIMED_OUT);
        assertThat(ended.notRefreshed()).containsExactly(key("5"));
        assertThat(waits.count(Result.TIMED_OUT)).isOne();
        assertThat(waits.waiting()).isZero();
    }

    @Test
    void aTimeoutLongerThanTheMaximumIsCutToIt() throws Exception {
        start(new Settings.Awaits(8, Duration.ofMillis(200), Duration.ofMillis(100)), "projection.auto-refresh", "false");

        RefreshWait ended = waits.await(commitCaptured("6"), Duration.ofHours(1));

        assertThat(ended.result()).isEqualTo(Result.TIMED_OUT);
    }

    @Test
    void beyondTheMaximumOfWaitersACallIsNotWaitedAtOnceAndStopEndsEveryWait() throws Exception {
        start(new Settings.Awaits(2, LONG, Duration.ofMinutes(10)), "projection.auto-refresh", "false");
        RefreshToken token = commitCaptured("8");
        Future<RefreshWait> one = threads.submit(() -> waits.await(token, LONG));
        Future<RefreshWait> two = threads.submit(() -> waits.await(token, LONG));
        checks.poll(10, TimeUnit.SECONDS);
        checks.poll(10, TimeUnit.SECONDS);
        assertThat(waits.waiting()).isEqualTo(2);

        RefreshWait third = waits.await(token, LONG);

        assertThat(third.result()).isEqualTo(Result.NOT_WAITED);
        assertThat(third.notRefreshed()).containsExactly(key("8"));
        waits.stop();
        assertThat(one.get(10, TimeUnit.SECONDS).result()).isEqualTo(Result.NOT_WAITED);
        assertThat(two.get(10, TimeUnit.SECONDS).result()).isEqualTo(Result.NOT_WAITED);
        assertThat(waits.await(token, LONG).result()).as("after stop").isEqualTo(Result.NOT_WAITED);
    }

    @Test
    void insideATransactionItDoesNotWaitAndOutsideNothingCommittedIsRefreshedAtOnce() throws Exception {
        start(new Settings.Awaits(8, LONG, Duration.ofMinutes(10)), "projection.auto-refresh", "false");
        RefreshToken token = commitCaptured("9");
        inTransaction.set(true);

        assertThat(waits.await(token, LONG).result()).isEqualTo(Result.NOT_WAITED);
        assertThat(checks).as("not even a check").isEmpty();
        try (CommitCapture nothing = waits.capture()) {
            assertThat(nothing.await(LONG).result()).as("its commit may be still to come")
                    .isEqualTo(Result.NOT_WAITED);
            inTransaction.set(false);
            assertThat(nothing.await(LONG).result()).as("no keys: nothing to wait for").isEqualTo(Result.REFRESHED);
        }
    }

    @Test
    void aCaptureTakesOnlyItsThreadsCommitsWhileOpenAndNestedCapturesEachTheirs() throws Exception {
        start(new Settings.Awaits(8, LONG, Duration.ofMinutes(10)), "projection.auto-refresh", "false");
        try (CommitCapture outer = waits.capture()) {
            waits.committed(Set.of(key("a")));
            threads.submit(() -> waits.committed(Set.of(key("elsewhere")))).get();
            try (CommitCapture inner = waits.capture()) {
                waits.committed(Set.of(key("b")));
                assertThat(inner.token().keys()).containsExactly(key("b"));
            }
            waits.committed(Set.of(key("c")));
            assertThat(outer.token().keys()).containsExactlyInAnyOrder(key("a"), key("b"), key("c"));
        }
        waits.committed(Set.of(key("after")));
        try (CommitCapture fresh = waits.capture()) {
            assertThat(fresh.token().keys()).isEmpty();
        }
    }

    @Test
    void aRequestsCaptureAbandonsOneAnEarlierRequestLeftOpenWhoseWaitIsThenNotWaited() throws Exception {
        start(new Settings.Awaits(8, LONG, Duration.ofMinutes(10)), "projection.auto-refresh", "false");
        CommitCapture leftOpen = waits.capture(); // its response filter never ran
        waits.committed(Set.of(key("earlier")));

        try (CommitCapture request = waits.captureRequest()) {
            waits.committed(Set.of(key("this")));
            assertThat(request.token().keys()).containsExactly(key("this"));
        }

        assertThat(leftOpen.await(LONG).result()).isEqualTo(Result.NOT_WAITED);
        assertThat(leftOpen.token().keys()).as("nothing after it was abandoned").containsExactly(key("earlier"));
    }

    /**
     * The engine review's E8: a check held up by the database (no connection for the pool's timeout, a lock on the
     * queue) must not hold the wait past its timeout; and a check still stuck keeps its waiter's permit, so stuck
     * checks never exceed {@code projection.await-max-waiters}.
     */
    @Test
    void aCheckThatDoesNotAnswerEndsItsWaitAtTheTimeoutAndKeepsItsPermitUntilItEnds() throws Exception {
        CountDownLatch databaseBack = new CountDownLatch(1);
        AtomicInteger checksAsked = new AtomicInteger();
        AtomicInteger checksEnded = new AtomicInteger();
        waits = new RefreshWaits(Clock.systemUTC(), new Settings.Awaits(1, LONG, Duration.ofMillis(50)), Duration.ZERO,
                (keys, committedAt, margin) -> {
                    checksAsked.incrementAndGet();
                    try {
                        databaseBack.await();
                        return Set.of();
                    } finally {
                        checksEnded.incrementAndGet();
                    }
                }, inTransaction::get, ReadYourWritesTest::daemon);
        RefreshToken token = new RefreshToken(Set.of(key("1")), java.time.Instant.now());

        RefreshWait stuck = threads.submit(() -> waits.await(token, Duration.ofMillis(100))).get(10, TimeUnit.SECONDS);

        assertThat(stuck.result()).as("answered at its timeout, the check still stuck").isEqualTo(Result.TIMED_OUT);
        assertThat(stuck.notRefreshed()).containsExactly(key("1"));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (checksAsked.get() == 0 && System.nanoTime() < until) {
            Thread.sleep(1); // the check's thread may start on it only after the wait ended, on a loaded machine
        }
        assertThat(checksEnded).hasValue(0);
        assertThat(waits.await(token, LONG).result()).as("the stuck check holds the only permit")
                .isEqualTo(Result.NOT_WAITED);
        assertThat(checksAsked).as("no second check while the first is stuck").hasValue(1);

        databaseBack.countDown();
        RefreshWait afterwards = null;
        for (int tries = 0; tries < 1_000 && (afterwards == null || afterwards.result() == Result.NOT_WAITED); tries++) {
            afterwards = waits.await(token, LONG); // the permit comes back once the stuck check ended
            if (afterwards.result() == Result.NOT_WAITED) {
                Thread.sleep(10);
            }
        }
        assertThat(afterwards.result()).isEqualTo(Result.REFRESHED);
    }

    /** {@code projection.await-max-waiters=0} turns waits off: every wait is NOT_WAITED, and the waits still start. */
    @Test
    void noWaitersAllowedTurnsWaitsOffWithoutFailing() throws Exception {
        waits = new RefreshWaits(Clock.systemUTC(), new Settings.Awaits(0, LONG, Duration.ofMillis(50)), Duration.ZERO,
                (keys, committedAt, margin) -> Set.copyOf(keys), inTransaction::get, ReadYourWritesTest::daemon);

        RefreshWait wait = waits.await(new RefreshToken(Set.of(key("1")), java.time.Instant.now()), LONG);

        assertThat(wait.result()).isEqualTo(Result.NOT_WAITED);
    }

    /**
     * The engine review's E6: a hot key, changed again while its refresh runs, is re-marked by the missed ack to the
     * claim's time. That claim began after the commit, on this instance, in its clock: the commit was read, and the
     * wait is answered REFRESHED — not held for the lease margin that only another instance's clock needs.
     */
    @Test
    void aKeyChangedAgainDuringARefreshThatReadTheCommitEndsTheWaitDespiteTheMargin() throws Exception {
        margin = Duration.ofSeconds(10);
        start(new Settings.Awaits(8, LONG, Duration.ofMillis(50)), "projection.auto-refresh", "false");
        RefreshToken token = commitCaptured("7");
        clock.advance(Duration.ofSeconds(1)); // the claim comes after the commit, in this instance's clock
        CountDownLatch first = gate();
        CountDownLatch second = gate();
        kickUntilEntered("7");
        Marks.mark(engine, "orders", "7"); // another user's change while the refresh runs
        first.countDown();
        assertThat(outcomes.poll(10, TimeUnit.SECONDS)).as("the ack missed: the key is marked again")
                .isEqualTo(RefreshOutcome.REPEATED);
        kickUntilEntered("7"); // the next refresh holds, the row stays

        RefreshWait wait = waits.await(token, Duration.ofSeconds(2));

        assertThat(wait.result()).as("the refresh that missed its ack had read the commit").isEqualTo(Result.REFRESHED);
        second.countDown();
    }

    // ---------------------------------------------------------------------------------------------------------

    private void start(Settings.Awaits bounds, String... settings) {
        Map<String, String> values = new java.util.HashMap<>();
        for (int i = 0; i < settings.length; i += 2) {
            values.put(settings[i], settings[i + 1]);
        }
        engine = engine("this-instance", values);
        // one process, one clock: no margin unless a test plays another instance's clock
        waits = new RefreshWaits(clock, bounds, margin, (keys, committedAt, margin) -> {
            Set<MarkKey> pending;
            try (Connection connection = dataSource.getConnection()) {
                pending = engine.store().checks().stillPending(connection, keys, committedAt, margin);
            }
            checks.add(pending);
            return pending;
        }, inTransaction::get, ReadYourWritesTest::daemon);
    }

    static Thread daemon(Runnable runnable) {
        Thread thread = new Thread(runnable);
        thread.setDaemon(true);
        return thread;
    }

    private Engine engine(String instance, Map<String, String> overrides) {
        Map<String, String> values = new java.util.HashMap<>(Map.of(
                "projection.workers", "2",
                "projection.sweep-interval", "1h",
                "projection.batch-linger", "0"));
        values.putAll(overrides);
        if ("this-instance".equals(instance)) {
            handOver = !"false".equals(values.remove("projection.auto-refresh"));
        }
        EngineBuilder builder = Engine.builder()
                .dataSource(dataSource)
                .container(PlainContainer.on(dataSource, threads).clock(clock))
                .settings(Settings.load(SettingSource.of(values)))
                .projections(ProjectionCatalog.of(projection()))
                .instanceId(instance)
                .withoutRebuildSteps()
                .observers(Observers.NONE.listener((key, outcome, took) -> {
                    if (waits != null && "this-instance".equals(instance)) {
                        waits.refreshed(key, outcome);
                    }
                    outcomes.add(outcome);
                }));
        return builder.build();
    }

    /** A thread's transaction that marks {@code ids}, captured as the server's commit hook captures it. */
    private RefreshToken commitCaptured(String... ids) throws Exception {
        try (CommitCapture capture = waits.capture()) {
            Set<MarkKey> keys = new java.util.TreeSet<>();
            for (String id : ids) {
                keys.add(Marks.mark(engine, "orders", id));
            }
            waits.committed(keys);
            if (handOver) {
                engine.drainers().committed(keys);
            }
            return capture.token();
        }
    }

    private Set<MarkKey> nextCheckAfterAQuickOne() throws InterruptedException {
        return checks.poll(10, TimeUnit.SECONDS);
    }

    private void kickUntilEntered(String id) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String next = null;
        while (next == null && System.nanoTime() < until) {
            engine.drainers().startIfSlotFree(DrainerOrigin.SWEEP);
            next = entered.poll(20, TimeUnit.MILLISECONDS);
        }
        assertThat(next).as("refreshed again").isEqualTo(id);
    }

    private CountDownLatch gate() {
        CountDownLatch gate = new CountDownLatch(1);
        gates.add(gate);
        return gate;
    }

    private static MarkKey key(String id) {
        return new MarkKey("orders", "", id);
    }

    private Projection projection() {
        return new Projection() {
            @Override
            public String name() {
                return "orders";
            }

            @Override
            public void refresh(String id) throws Exception {
                refreshAll(List.of(id));
            }

            @Override
            public void refreshAll(List<String> ids) throws Exception {
                refreshes.addAndGet(ids.size());
                ids.forEach(entered::add);
                CountDownLatch gate = gates.poll();
                if (gate != null) {
                    assertThat(gate.await(30, TimeUnit.SECONDS)).isTrue();
                }
            }
        };
    }
}
