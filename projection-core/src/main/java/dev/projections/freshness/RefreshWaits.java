package dev.projections.freshness;

import dev.projections.CommitCapture;
import dev.projections.MarkKey;
import dev.projections.RefreshOutcome;
import dev.projections.RefreshToken;
import dev.projections.RefreshWait;
import dev.projections.RefreshWait.Result;
import dev.projections.config.Settings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.lang.ref.WeakReference;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * Read-your-writes waits (docs/contract.md §14, docs/design.md D46). A thread opens a {@link CommitCapture}; each
 * commit of that thread adds its keys ({@link #committed}, one thread-local read when no capture is open, no
 * statement). {@link #await} then holds the thread until the queue says every key was refreshed by a refresh that
 * read the commit ({@link PendingCheck}), or the timeout passes.
 * <p>
 * The queue is the only judge, so a refresh on any instance ends a wait. A refresh of one of the keys on this
 * instance wakes the waiter to check at once ({@link #refreshed}); otherwise it checks after 50, 100, 200 and 400 ms,
 * then every {@code projection.await-poll-interval}. Waiting threads are bounded ({@code projection.await-max-waiters}:
 * one more is answered {@link Result#NOT_WAITED} at once) and so are waits ({@code projection.await-max-timeout}).
 * The check compares a row's {@code first_marked_at} with the commit's time, plus {@code margin} when another
 * instance wrote it ({@code first_marked_by}): that instance's clock may run ahead of this one's by up to the lease
 * margin the clock check allows, and a row it inserted before the commit must not pass for one inserted after. Within
 * that margin a key another instance marked again after its refresh keeps the wait going until that mark is refreshed
 * too: never too early, sometimes later. A row this instance wrote is compared in its own clock, so a hot key whose
 * refresh here missed its ack is done once a claim that began after the commit missed it.
 * <p>
 * A check runs on a thread of the waits' own ({@code checkThreads}) and the waiting thread waits for its answer only
 * until the wait's deadline: a check held up by the pool (no connection for the pool's blocking timeout) or by a lock
 * on the queue (a schema change, a {@code VACUUM FULL}) must not hold the request past its timeout. A check that
 * answers late is dropped; the waiter's permit stays taken until it ends, so stuck checks count against
 * {@code projection.await-max-waiters} and never pile up.
 */
public final class RefreshWaits {

    private static final Logger LOG = Logger.getLogger(RefreshWaits.class.getName());

    /** The database checks of a wait, before it settles to the poll interval. */
    private static final List<Duration> FIRST_CHECKS = List.of(Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(200), Duration.ofMillis(400));

    /**
     * A capture still open this long is abandoned at the thread's next commit (its wait is then not waited): a pooled
     * thread must not collect keys for ever for a capture nobody closes.
     */
    static final Duration ABANDONED_CAPTURE = Duration.ofMinutes(5);

    /**
     * Which of the keys are still waiting for a refresh that read a commit this instance made at {@code committedAt}
     * (its clock); {@code margin}: how far another instance's clock, which may have written a row's time, may run ahead.
     */
    @FunctionalInterface
    public interface PendingCheck {
        Set<MarkKey> stillPending(Collection<MarkKey> keys, Instant committedAt, Duration margin) throws Exception;
    }

    private final Clock clock;
    private final Settings.Awaits bounds;
    private final Duration margin;
    private final PendingCheck check;
    private final BooleanSupplier inTransaction;
    private final WaitCounts counts = new WaitCounts();
    private final Semaphore permits;
    /* the checks' threads, started with the waits (in a server, in the deployment's context, not a request's) */
    private final ThreadPoolExecutor checks;

    /**
     * Threads that run checks. A check is one primary-key read, so a few serve many waiters; when every one is held up
     * (the database in trouble), the others' checks queue behind and their waits end at their deadlines, as they should.
     */
    static final int CHECK_THREADS = 4;
    /* a thread's open captures; a copy-on-write list, since a JAX-RS response filter may close one on another thread */
    private final ThreadLocal<List<Capture>> captures = new ThreadLocal<>();
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private final AtomicInteger waiting = new AtomicInteger();
    private volatile boolean stopped;

    /**
     * @param margin        how much later than a commit a row of another instance's clock may say it was first marked
     *                      and still be older (the lease margin: docs/contract.md §4 "Time")
     * @param inTransaction whether the calling thread is inside a transaction (then it does not wait)
     * @param checkThreads  makes the threads the checks run on (in a server, the container's managed thread factory):
     *                      {@link #CHECK_THREADS} of them (fewer if fewer waiters are allowed), all made here
     */
    public RefreshWaits(Clock clock, Settings.Awaits bounds, Duration margin, PendingCheck check,
                        BooleanSupplier inTransaction, ThreadFactory checkThreads) {
        this.clock = clock;
        this.bounds = bounds;
        this.margin = margin;
        this.check = check;
        this.inTransaction = inTransaction;
        this.permits = new Semaphore(bounds.maxWaiters());
        int threads = Math.max(1, Math.min(CHECK_THREADS, bounds.maxWaiters()));
        this.checks = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                runnable -> {
                    Thread thread = checkThreads.newThread(runnable);
                    thread.setName("projection-await-check-" + thread.getId());
                    return thread;
                });
        // made now, on the thread that builds the waits: a thread made later would carry the context of whichever
        // request first needed it (as the drainers' threads, docs/design.md "Threads of their own")
        this.checks.prestartAllCoreThreads();
    }

    /** Opens a capture of this thread's commits. */
    public CommitCapture capture() {
        List<Capture> open = captures.get();
        if (open == null) {
            open = new CopyOnWriteArrayList<>();
            captures.set(open);
        }
        Capture capture = new Capture(this, open);
        open.add(capture);
        return capture;
    }

    /**
     * Opens the capture of a request, at its start: any capture still open on this thread was left by an earlier
     * request whose end was never seen (a JAX-RS response filter skipped by an unmapped exception), and is abandoned.
     */
    public CommitCapture captureRequest() {
        abandon(captures.get(), capture -> true);
        return capture();
    }

    /** A transaction of this thread committed these keys: each capture open on the thread takes them. */
    public void committed(Collection<MarkKey> keys) {
        List<Capture> open = captures.get();
        if (open == null || keys.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        abandon(open, capture -> now - capture.openedNanos > ABANDONED_CAPTURE.toNanos());
        Instant at = clock.instant();
        for (Capture capture : open) {
            capture.add(keys, at);
        }
    }

    /** Abandons the captures of {@code open} that {@code which} selects: their waits are not waited. */
    private void abandon(List<Capture> open, Predicate<Capture> which) {
        if (open == null) {
            return;
        }
        for (Capture capture : open) {
            if (which.test(capture)) {
                capture.abandoned = true;
                open.remove(capture);
            }
        }
        if (open.isEmpty()) {
            captures.remove();
        }
    }

    /** A refresh of {@code key} committed on this instance: its waiters check the queue now. */
    public void refreshed(MarkKey key, RefreshOutcome outcome) {
        if (outcome == RefreshOutcome.FAILED || waiters.isEmpty()) {
            return;
        }
        for (Waiter waiter : waiters) {
            if (waiter.remaining.contains(key)) {
                waiter.wake();
            }
        }
    }

    /**
     * Refreshes committed on another instance (its signal, docs/design.md D55): every waiter checks the queue now
     * rather than at its next poll.
     */
    public void refreshedElsewhere() {
        for (Waiter waiter : waiters) {
            waiter.wake();
        }
    }

    /** Whether the calling thread is inside a transaction, where a wait would not wait. */
    public boolean inTransaction() {
        return inTransaction.getAsBoolean();
    }

    /** Threads waiting now. */
    public int waiting() {
        return waiting.get();
    }

    /** Undeploy: every wait ends now, not waited; no new one starts. */
    public void stop() {
        stopped = true;
        for (Waiter waiter : waiters) {
            waiter.wake();
            CompletableFuture<Set<MarkKey>> check = waiter.check;
            if (check != null) {
                check.cancel(false); // a waiter waiting for its check's answer stops waiting now
            }
        }
        checks.shutdownNow();
    }

    /**
     * Waits until every key of {@code token} was refreshed by a refresh that read its commit, or {@code timeout}
     * (capped by {@code projection.await-max-timeout}) passed. Never throws for a timeout or the database's trouble
     * (a check that fails counts as no progress).
     */
    public RefreshWait await(RefreshToken token, Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, was " + timeout);
        }
        long start = System.nanoTime();
        // inside a transaction first: its commit, and so its keys, may be still to come
        if (stopped || inTransaction.getAsBoolean()) {
            return counts.ended(new RefreshWait(Result.NOT_WAITED, Duration.ZERO, token.keys()));
        }
        if (token.keys().isEmpty()) {
            return counts.ended(new RefreshWait(Result.REFRESHED, Duration.ZERO, Set.of()));
        }
        if (!permits.tryAcquire()) {
            return counts.ended(new RefreshWait(Result.NOT_WAITED, Duration.ZERO, token.keys()));
        }
        Waiter waiter = new Waiter(token.keys());
        waiters.add(waiter);
        waiting.incrementAndGet();
        try {
            Duration bounded = timeout.compareTo(bounds.maxTimeout()) > 0 ? bounds.maxTimeout() : timeout;
            long deadline = start + bounded.toNanos();
            Instant committedAt = token.committedAt();
            for (int checksDone = 0; ; checksDone++) {
                Set<MarkKey> pending = answerBy(waiter, ask(waiter, committedAt), deadline);
                long now = System.nanoTime();
                if (pending == null) {
                    return counts.ended(new RefreshWait(Result.TIMED_OUT, Duration.ofNanos(now - start), waiter.remaining));
                }
                waiter.remaining = pending;
                if (waiter.remaining.isEmpty()) {
                    return counts.ended(new RefreshWait(Result.REFRESHED, Duration.ofNanos(now - start), Set.of()));
                }
                if (stopped) {
                    return counts.ended(new RefreshWait(Result.NOT_WAITED, Duration.ofNanos(now - start), waiter.remaining));
                }
                if (now - deadline >= 0) {
                    return counts.ended(new RefreshWait(Result.TIMED_OUT, Duration.ofNanos(now - start), waiter.remaining));
                }
                waiter.sleep(Math.min(nextCheck(checksDone).toNanos(), deadline - now));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return counts.ended(new RefreshWait(Result.NOT_WAITED, Duration.ofNanos(System.nanoTime() - start),
                    waiter.remaining));
        } finally {
            waiters.remove(waiter);
            waiting.decrementAndGet();
            // a check still running keeps the permit until it ends
            CompletableFuture<Set<MarkKey>> last = waiter.check;
            if (last == null) {
                permits.release();
            } else {
                last.whenComplete((answer, failure) -> permits.release());
            }
        }
    }

    /** The waiter's next check, on a check thread; once the waits are stopped, an answer of no progress. */
    private CompletableFuture<Set<MarkKey>> ask(Waiter waiter, Instant committedAt) {
        Set<MarkKey> keys = waiter.remaining;
        CompletableFuture<Set<MarkKey>> answer;
        try {
            answer = CompletableFuture.supplyAsync(() -> stillPending(keys, committedAt), checks);
        } catch (RuntimeException stopping) { // rejected once stopped; a container refuses new threads after undeploy
            answer = CompletableFuture.completedFuture(keys);
        }
        waiter.check = answer;
        return answer;
    }

    /** The check's answer, or {@code null} when it has none by {@code deadline} (then it is dropped). */
    private Set<MarkKey> answerBy(Waiter waiter, CompletableFuture<Set<MarkKey>> answer, long deadline)
            throws InterruptedException {
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                return answer.get(Math.max(0, Math.min(left, STOP_LOOK.toNanos())), TimeUnit.NANOSECONDS);
            } catch (TimeoutException notYet) {
                // a stop may have drained this check unrun (asked just as the waits stopped): it would never answer
                if (stopped) {
                    return waiter.remaining;
                }
                if (deadline - System.nanoTime() <= 0) {
                    return null;
                }
            } catch (ExecutionException | CancellationException noAnswer) {
                // stillPending answers every failure with the keys; a check is cancelled only when the waits stop
                return waiter.remaining;
            }
        }
    }

    /** How often a waiter waiting for its check's answer looks whether the waits stopped. */
    private static final Duration STOP_LOOK = Duration.ofMillis(100);

    private Duration nextCheck(int checksDone) {
        Duration next = checksDone < FIRST_CHECKS.size() ? FIRST_CHECKS.get(checksDone) : bounds.pollInterval();
        return next.compareTo(bounds.pollInterval()) > 0 ? bounds.pollInterval() : next;
    }

    private Set<MarkKey> stillPending(Set<MarkKey> keys, Instant committedAt) {
        try {
            return Set.copyOf(check.stillPending(keys, committedAt, margin));
        } catch (Exception e) {
            LOG.log(Level.FINE, "a read-your-writes check failed; the wait goes on: {0}", e.toString());
            return keys;
        }
    }

    /** Waits that ended with {@code result} since the start (the meter {@code projection.await}). */
    public long count(Result result) {
        return counts.count(result);
    }

    /** Their time waited in all, in seconds. */
    public double secondsWaited(Result result) {
        return counts.secondsWaited(result);
    }

    /**
     * A capture of one thread's commits. It refers to its {@link RefreshWaits} weakly: a capture left in a pooled
     * thread's thread-local must not keep the thread-local's owner, and so the entry, alive.
     */
    private static final class Capture implements CommitCapture {
        private final WeakReference<RefreshWaits> waits;
        private final List<Capture> owner;
        private final long openedNanos = System.nanoTime();
        private final Set<MarkKey> keys = new LinkedHashSet<>();
        private Instant committedAt;
        /** Dropped unclosed (left by a request, or open too long): its keys may be incomplete, so it is not waited. */
        private volatile boolean abandoned;

        Capture(RefreshWaits waits, List<Capture> owner) {
            this.waits = new WeakReference<>(waits);
            this.owner = owner;
            this.committedAt = waits.clock.instant();
        }

        synchronized void add(Collection<MarkKey> committed, Instant at) {
            keys.addAll(committed);
            committedAt = at;
        }

        @Override
        public synchronized RefreshToken token() {
            return new RefreshToken(keys, committedAt);
        }

        @Override
        public RefreshWait await(Duration timeout) {
            RefreshWaits owner = waits.get();
            if (abandoned || owner == null) {
                return new RefreshWait(Result.NOT_WAITED, Duration.ZERO, token().keys());
            }
            return owner.await(token(), timeout);
        }

        @Override
        public void close() {
            owner.remove(this);
            RefreshWaits owning = waits.get();
            if (owner.isEmpty() && owning != null && owning.captures.get() == owner) {
                owning.captures.remove();
            }
        }
    }
}
