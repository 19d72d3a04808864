package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PauseCopyTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final AtomicReference<Set<String>> table = new AtomicReference<>(Set.of());
    private final AtomicInteger reads = new AtomicInteger();
    private final ExecutorService callers = Executors.newCachedThreadPool();

    /** Set by a test to hold reads inside the "database" until it lets them go. */
    private volatile CountDownLatch readStarted = new CountDownLatch(0);
    private volatile CountDownLatch readMayEnd = new CountDownLatch(0);
    private volatile boolean failing;

    private final PauseCopy copy = new PauseCopy(() -> {
        reads.incrementAndGet();
        Set<String> seen = table.get(); // what the database holds when the read begins
        readStarted.countDown();
        readMayEnd.await();
        if (failing) {
            throw new SQLException("connection refused");
        }
        return seen;
    }, now::get, 1, TimeUnit.SECONDS);

    @AfterEach
    void stopCallers() {
        readMayEnd.countDown();
        callers.shutdownNow();
    }

    @Test
    void aCopyYoungerThanItsAgeLimitIsServedWithoutReadingAgain() {
        table.set(Set.of("orders"));
        assertThat(copy.paused()).containsExactly("orders");
        table.set(Set.of());
        now.addAndGet(SECOND);

        assertThat(copy.paused()).as("a second old: still the copy").containsExactly("orders");
        assertThat(reads).hasValue(1);

        now.incrementAndGet();
        assertThat(copy.paused()).as("older than a second: the first look takes it as it is").containsExactly("orders");
        assertThat(copy.paused()).as("older than a second: read again").isEmpty();
        assertThat(reads).hasValue(2);
    }

    /**
     * A drainer started by a commit after a quiet second looks before its first turn: it takes the aged copy as it is,
     * without a read on the way to the commit's refresh; the next look reads.
     */
    @Test
    void theFirstLookAtAnAgedCopyTakesItAsItIsAndTheNextReads() {
        table.set(Set.of("orders"));
        copy.paused();
        table.set(Set.of());
        now.addAndGet(10 * SECOND);

        assertThat(copy.paused()).as("aged, taken as it is").containsExactly("orders");
        assertThat(reads).hasValue(1);
        assertThat(copy.paused()).as("the next look reads").isEmpty();
        assertThat(reads).hasValue(2);

        now.addAndGet(2 * SECOND);
        assertThat(copy.paused()).as("the new copy aged: taken as it is once more").isEmpty();
        assertThat(reads).hasValue(2);
    }

    @Test
    void whileOneCallerReReadsAnAgedCopyTheOthersGetTheCopyWithoutWaitingForTheDatabase() throws Exception {
        table.set(Set.of("orders"));
        copy.paused();
        table.set(Set.of("orders", "stats"));

        Future<Set<String>> reReading = aReReadOfTheAgedCopyHeldInTheDatabase();
        Future<Set<String>> other = callers.submit(copy::paused);

        // the re-read is still held inside the database: the other caller has the aged copy all the same
        assertThat(other.get(10, TimeUnit.SECONDS)).containsExactly("orders");
        assertThat(reReading).isNotDone();
        readMayEnd.countDown();
        assertThat(reReading.get(10, TimeUnit.SECONDS)).containsExactlyInAnyOrder("orders", "stats");
        assertThat(copy.paused()).containsExactlyInAnyOrder("orders", "stats");
        assertThat(reads).hasValue(2);
    }

    @Test
    void theFirstLookAfterAnInvalidationWaitsForAFreshReadEvenWhileTheCopyIsYoung() {
        table.set(Set.of("orders"));
        copy.paused();
        table.set(Set.of()); // this instance resumed orders and committed

        copy.invalidate();

        assertThat(copy.paused()).as("a look right after a resume includes the projection resumed").isEmpty();
        assertThat(reads).hasValue(2);
    }

    @Test
    void anAgedCopyIsNeverTakenAsItIsAfterAnInvalidation() {
        table.set(Set.of("orders"));
        copy.paused();
        now.addAndGet(2 * SECOND);
        table.set(Set.of()); // this instance resumed orders and committed

        copy.invalidate();

        assertThat(copy.paused()).as("the first look at the aged copy, after the resume: read").isEmpty();
        assertThat(reads).hasValue(2);
    }

    @Test
    void aCallerAfterAnInvalidationWaitsForTheReadInFlightAndThenReadsAgain() throws Exception {
        table.set(Set.of("orders"));
        copy.paused();
        Future<Set<String>> reReading = aReReadOfTheAgedCopyHeldInTheDatabase(); // begins before the resume commits

        table.set(Set.of());
        copy.invalidate();
        CompletableFuture<Set<String>> afterResume = CompletableFuture.supplyAsync(copy::paused, callers);
        readMayEnd.countDown();

        assertThat(reReading.get(10, TimeUnit.SECONDS)).as("read before the resume").containsExactly("orders");
        assertThat(afterResume.get(10, TimeUnit.SECONDS))
                .as("the read in flight began before the invalidation: its result is not served after it").isEmpty();
        assertThat(reads).hasValue(3);
    }

    @Test
    void aFailedReadKeepsTheLastCopyAndTheNextCallerTriesAgain() {
        table.set(Set.of("orders"));
        copy.paused();
        now.addAndGet(2 * SECOND);
        failing = true;

        assertThat(copy.paused()).as("aged, taken as it is").containsExactly("orders");
        assertThat(copy.paused()).containsExactly("orders");
        assertThat(copy.paused()).containsExactly("orders");
        assertThat(reads).as("the copy kept its age: each call after the first tried the database").hasValue(3);

        failing = false;
        table.set(Set.of());
        assertThat(copy.paused()).isEmpty();
    }

    @Test
    void withNoCopyYetAFailedReadMeansNothingIsKnownPaused() {
        failing = true;
        table.set(Set.of("orders"));
        assertThat(copy.paused()).isEmpty();
        failing = false;
        assertThat(copy.paused()).as("never read: the next call reads").containsExactly("orders");
    }

    /**
     * Ages the copy, has a caller take it as it is, and another re-read it: the read has begun and is held until
     * {@code readMayEnd}.
     */
    private Future<Set<String>> aReReadOfTheAgedCopyHeldInTheDatabase() throws InterruptedException {
        now.addAndGet(2 * SECOND);
        int before = reads.get();
        copy.paused();
        assertThat(reads).as("the first look at the aged copy reads nothing").hasValue(before);
        readStarted = new CountDownLatch(1);
        readMayEnd = new CountDownLatch(1);
        Future<Set<String>> reReading = callers.submit(copy::paused);
        assertThat(readStarted.await(10, TimeUnit.SECONDS)).isTrue();
        return reReading;
    }
}
