package dev.projections.trend;

import dev.projections.inspect.PendingCounts;
import dev.projections.inspect.ProjectionCounts;
import dev.projections.refresh.DatabaseTroubleException;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.Transactions;
import dev.projections.store.NodeTable;
import dev.projections.store.TrendSample;
import dev.projections.store.TrendTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sweep's trend task (docs/contract.md §12): the first sweep of each minute writes, for each deployed projection,
 * the minute that just ended — this instance's refreshes in it and the backlog counted now — and any older minute
 * whose refreshes no sweep wrote yet (without a backlog: nobody counted it then); then forgets minutes and instances
 * older than {@code projection.trend-retention}. Every instance writes its own rows; the console adds them up. What
 * could not be written (the database is away) is written with the next minute's.
 */
public final class TrendSampler {

    private final TrendTable trends;
    private final NodeTable nodes;
    private final PendingCounts counts;
    private final RefreshMinutes minutes;
    private final Transactions transactions;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final String instanceId;
    private final Duration retention;
    private Instant lastSampled;

    public TrendSampler(TrendTable trends, NodeTable nodes, PendingCounts counts, RefreshMinutes minutes,
                        Transactions transactions, Clock clock, ProjectionCatalog catalog, String instanceId,
                        Duration retention) {
        this.trends = trends;
        this.nodes = nodes;
        this.counts = counts;
        this.minutes = minutes;
        this.transactions = transactions;
        this.clock = clock;
        this.catalog = catalog;
        this.instanceId = instanceId;
        this.retention = retention;
    }

    /** Writes the minutes that ended since the last sample; returns how many rows, 0 when this minute was done. */
    public synchronized int sample() {
        Instant now = clock.instant();
        Instant minute = now.truncatedTo(ChronoUnit.MINUTES);
        if (minute.equals(lastSampled)) {
            return 0;
        }
        List<RefreshMinutes.Minute> taken = minutes.takeEnded(now);
        try {
            int written = transactions.inNewTransaction(Duration.ofSeconds(30), connection -> {
                List<TrendSample> samples = samples(minute.minus(1, ChronoUnit.MINUTES),
                        counts.countsByProjection(connection, now), taken);
                trends.add(connection, instanceId, samples);
                trends.prune(connection, now.minus(retention));
                nodes.prune(connection, now.minus(retention));
                return samples.size();
            });
            lastSampled = minute;
            return written;
        } catch (RuntimeException | Error e) {
            minutes.giveBack(taken);
            throw e;
        } catch (Exception e) {
            minutes.giveBack(taken);
            throw new DatabaseTroubleException("sampling the trends failed: " + e.getMessage(), e);
        }
    }

    private List<TrendSample> samples(Instant ended, Map<String, ProjectionCounts> backlog,
                                      List<RefreshMinutes.Minute> taken) {
        List<TrendSample> samples = new ArrayList<>();
        Set<String> deployed = catalog.names();
        for (String projection : deployed) {
            RefreshMinutes.Minute refreshes = taken.stream()
                    .filter(m -> m.projection().equals(projection) && m.start().equals(ended)).findFirst().orElse(null);
            ProjectionCounts count = backlog.get(projection);
            samples.add(new TrendSample(projection, ended, count == null ? 0L : count.pending(),
                    count == null ? 0L : count.dueNow(), count == null ? 0L : count.failing(),
                    refreshes == null ? 0 : refreshes.completed(), refreshes == null ? 0 : refreshes.failed(),
                    refreshes == null ? null : refreshes.p99Micros()));
        }
        for (RefreshMinutes.Minute earlier : taken) {
            if (!earlier.start().equals(ended) || !deployed.contains(earlier.projection())) {
                samples.add(new TrendSample(earlier.projection(), earlier.start(), null, null, null,
                        earlier.completed(), earlier.failed(), earlier.p99Micros()));
            }
        }
        return samples;
    }
}
