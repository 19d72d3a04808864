package dev.projections.refresh;

import dev.projections.ClockSkew;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.time.Instant;

/** Counters of what the engine did on this instance, for tests, metrics and the health endpoint. */
public final class EngineStats {

    private final Map<DrainerOrigin, AtomicLong> drainersStarted = new EnumMap<>(DrainerOrigin.class);
    private final AtomicLong sweeps = new AtomicLong();
    private final AtomicLong markStatements = new AtomicLong();
    private final RefreshRate refreshRate = new RefreshRate();
    private final Map<String, LongAdder> listenerFailures = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> drifted = new ConcurrentHashMap<>();

    /** Completed refreshes per projection in the last minute on this instance. */
    public RefreshRate refreshRate() {
        return refreshRate;
    }

    public EngineStats() {
        for (DrainerOrigin origin : DrainerOrigin.values()) {
            drainersStarted.put(origin, new AtomicLong());
        }
    }

    public void drainerStarted(DrainerOrigin origin) {
        drainersStarted.get(origin).incrementAndGet();
    }

    public long drainersStarted(DrainerOrigin origin) {
        return drainersStarted.get(origin).get();
    }

    private final Instant startedAt = Instant.now();
    private volatile Instant lastSweepAt;

    public void sweepRan() {
        sweeps.incrementAndGet();
        lastSweepAt = Instant.now();
    }

    /** Wall-clock time of the last sweep, {@code null} before the first. */
    public Instant lastSweepAt() {
        return lastSweepAt;
    }

    public Instant startedAt() {
        return startedAt;
    }

    public long sweeps() {
        return sweeps.get();
    }

    private volatile ClockSkew clockSkew;

    /** The heartbeat measured this instance's clock against the database's. */
    public void clockMeasured(ClockSkew measured) {
        clockSkew = measured;
    }

    /** This instance's clock against the database's at the last heartbeat, {@code null} before the first. */
    public ClockSkew clockSkew() {
        return clockSkew;
    }

    private volatile ProcessingCount processing;

    /** The instances that process marks and reported lately, as this instance's last sweep counted them (D54). */
    public void processingCounted(ProcessingCount count) {
        processing = count;
    }

    /** This instance's last count of the instances that process marks; {@code null} before its first. */
    public ProcessingCount processing() {
        return processing;
    }

    /** The live instances that process marks at this instance's last count; -1 before its first. */
    public int liveProcessingNodes() {
        ProcessingCount last = processing;
        return last == null ? -1 : last.instances();
    }

    /** One commit-time statement wrote a transaction's marks. */
    public void marksWritten() {
        markStatements.incrementAndGet();
    }

    public long markStatements() {
        return markStatements.get();
    }

    /**
     * Application code called once a refresh of {@code projection} had its outcome — a {@code RefreshListener}, the
     * close of a {@code TenantScope} — threw; the outcome stood (docs/contract.md §6).
     */
    public void listenerFailed(String projection) {
        listenerFailures.computeIfAbsent(projection, p -> new LongAdder()).increment();
    }

    /** How often {@link #listenerFailed} was told of {@code projection} on this instance since it started. */
    public long listenerFailures(String projection) {
        LongAdder failures = listenerFailures.get(projection);
        return failures == null ? 0 : failures.sum();
    }

    /** {@code count} keys of {@code projection} were found drifted and re-marked by a commit of this instance. */
    public void driftFound(String projection, int count) {
        drifted.computeIfAbsent(projection, p -> new LongAdder()).add(count);
    }

    /** The keys of {@code projection} this instance found drifted since it started (samples and verifications). */
    public long drifted(String projection) {
        LongAdder found = drifted.get(projection);
        return found == null ? 0 : found.sum();
    }
}
