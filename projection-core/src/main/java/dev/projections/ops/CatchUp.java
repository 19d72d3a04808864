package dev.projections.ops;

import dev.projections.IdleWait;
import dev.projections.config.Settings;
import dev.projections.freshness.IdleWaits;
import dev.projections.refresh.ProjectionCatalog;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * What an application's tests ask of the whole engine (docs/contract.md §14, "Test support"): wait until no mark of
 * some projections is left, and make their failing marks due now with a drainer started for them.
 */
public final class CatchUp {

    private final IdleWaits idle;
    private final MarkOperations marks;
    private final ProjectionCatalog catalog;
    private final Settings settings;
    private final Consumer<Set<String>> drainAfterCommit;

    /** @param drainAfterCommit starts a drainer for the projections once the caller's transaction committed */
    public CatchUp(IdleWaits idle, MarkOperations marks, ProjectionCatalog catalog, Settings settings,
                   Consumer<Set<String>> drainAfterCommit) {
        this.idle = idle;
        this.marks = marks;
        this.catalog = catalog;
        this.settings = settings;
        this.drainAfterCommit = drainAfterCommit;
    }

    /** The named projections, each checked ({@link UnknownProjection}), or every deployed one when none is named. */
    public Set<String> namedOrAll(String... projections) {
        if (projections == null || projections.length == 0) {
            return catalog.names();
        }
        Set<String> names = new TreeSet<>();
        for (String projection : projections) {
            names.add(UnknownProjection.requireKnown(projection, catalog));
        }
        return names;
    }

    /**
     * Waits until none of {@code projections} has a mark, at most {@code timeout} (capped by
     * {@code projection.await-max-timeout}); when it did not get there, says how many marks each still has.
     */
    public IdleWait awaitIdle(Set<String> projections, Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, was " + timeout);
        }
        long start = System.nanoTime();
        boolean reached;
        try {
            reached = idle.await(projections, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reached = false;
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        Map<String, Long> pending = new TreeMap<>();
        Map<String, Long> failing = new TreeMap<>();
        Map<String, Long> parked = new TreeMap<>();
        for (String name : projections) {
            pending.put(name, reached ? 0L : marks.pending(name));
            failing.put(name, reached ? 0L : marks.failing(name));
            parked.put(name, reached ? 0L : marks.parked(name));
        }
        return new IdleWait(reached, waited, pending, failing, parked);
    }

    /**
     * Makes the failing marks of {@code projections} due now and, once the caller's transaction committed, starts a
     * drainer for them (none on a web node: the processing instances take them); returns how many marks it made due.
     * Refused where the engine is off or driven by hand. Audited as a retry of each projection's failing marks under
     * {@code by}.
     */
    public int refreshNow(Set<String> projections, String by) {
        if (!settings.enabled() || !settings.autoRefresh()) {
            throw new IllegalStateException("refreshNow needs projection.enabled and projection.auto-refresh (true by "
                    + "default): with either false nothing refreshes on this instance; drive the engine with EngineSteps");
        }
        int madeDue = 0;
        for (String name : projections) {
            madeDue += marks.retryFailed(name, by);
        }
        drainAfterCommit.accept(projections);
        return madeDue;
    }
}
