package dev.projections.refresh;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This instance's copy of which projections are paused ({@code projection_control}), read again when it is older than
 * its age limit. The check before each refresh (docs/contract.md §4 step 2) asks it on a drainer's turn, so asking
 * must not wait for the database while a copy is there: the first caller to find a copy aged takes it as it is and
 * leaves the read to the next (so a drainer started by a commit after a quiet second, if it is the first to look,
 * reads after its refresh, at its next look, not before; it may be the sweep or the console instead); one caller then
 * re-reads, and every other caller meanwhile gets the copy as it was, a moment older. The claim queries read the table
 * themselves, so what is claimed never depends on this copy. Two cases wait for a read instead: the first ever, and
 * those after {@link #invalidate()} — told after this instance paused or resumed a projection, and by a signal from
 * another instance while one is paused — since a look right after a resume must not leave out the projection just
 * resumed.
 * They wait for one read between them (whoever comes after it finds it fresh), but while reads fail each tries again
 * in turn, and a failed one answers with the copy from before the invalidation, the best this instance knows.
 */
public final class PauseCopy {

    private static final Logger LOG = Logger.getLogger(PauseCopy.class.getName());

    /** Reads the paused projections' names; may fail, and the copy then stays as it was. */
    @FunctionalInterface
    public interface Reader {
        Set<String> read() throws Exception;
    }

    /** A read's result: when it began, and how many invalidations had been told by then. */
    private record Copy(Set<String> paused, long readAt, long invalidations) {
    }

    private final Reader reader;
    private final LongSupplier nanoTime;
    private final long maxAgeNanos;
    private final ReentrantLock reading = new ReentrantLock();
    private final AtomicLong invalidations = new AtomicLong();
    private volatile Copy copy; // null until a read succeeds
    /** The last aged copy served without a read: the next caller to find it aged reads. */
    private final AtomicReference<Copy> servedAged = new AtomicReference<>();

    public PauseCopy(Reader reader, LongSupplier nanoTime, long maxAge, TimeUnit unit) {
        this.reader = reader;
        this.nanoTime = nanoTime;
        this.maxAgeNanos = unit.toNanos(maxAge);
    }

    /**
     * The paused projections: the copy when it is young enough, aged and not served so yet, or another caller is
     * re-reading it; else read now.
     */
    public Set<String> paused() {
        Copy last = copy;
        if (last != null && last.invalidations == invalidations.get()) {
            if (young(last)) {
                return last.paused;
            }
            Copy served = servedAged.get();
            if (served != last && servedAged.compareAndSet(served, last) || !reading.tryLock()) {
                return last.paused;
            }
        } else {
            reading.lock(); // no copy that may be served: wait for a read that began after the change
        }
        try {
            return readUnlessReadMeanwhile();
        } finally {
            reading.unlock();
        }
    }

    /** The copy is stale: the next call reads again, and waits for that read (a change this instance committed). */
    public void invalidate() {
        invalidations.incrementAndGet();
    }

    private Set<String> readUnlessReadMeanwhile() {
        long told = invalidations.get(); // before the read: a change told while it runs makes its result stale
        Copy last = copy;
        if (last != null && last.invalidations == told && young(last)) {
            return last.paused; // the caller that held the lock before this one read it
        }
        long readAt = nanoTime.getAsLong();
        try {
            Set<String> paused = Set.copyOf(reader.read());
            copy = new Copy(paused, readAt, told);
            return paused;
        } catch (Exception e) {
            LOG.log(Level.FINE, "could not read which projections are paused; keeping the last known pauses", e);
            return last == null ? Set.of() : last.paused; // the copy keeps its age, so the next caller tries again
        }
    }

    private boolean young(Copy last) {
        return nanoTime.getAsLong() - last.readAt <= maxAgeNanos;
    }
}
