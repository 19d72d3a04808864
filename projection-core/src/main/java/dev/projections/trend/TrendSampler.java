package dev.projections.trend;

import dev.projections.inspect.PendingCounts;
import dev.projections.inspect.ProjectionCounts;
import dev.projections.refresh.Database;
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
 * the minute that just ended — this instance's refreshes in it and the backlog counted now, unless another instance
 * counted that minute's already (the backlog is the shared queue's: one grouped scan per minute, not one per
 * instance) — and any older minute
 * whose refreshes no sweep wrote yet (without a backlog: nobody counted it then). It tries once per minute: when the
 * database fails it, the minutes go back and out with the next minute's write, and the sweeps of this minute do not
 * pay for it again. Every {@link #PRUNE_EVERY} minutes, in a transaction of its own, it deletes an hour at most of
 * rows older than {@code projection.trend-retention}, and instances not seen for as long: a bounded delete, however
 * far behind the prune is (a lowered retention, a long downtime). Every instance writes its own rows; the console
 * adds them up. At undeploy {@link #flush} writes what the instance counted so far, the unfinished minute too.
 */
public final class TrendSampler {

    static final int PRUNE_EVERY = 10;

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

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

    /** Writes the minutes that ended since the last sample; returns how many rows, 0 when this minute was tried. */
    public synchronized int sample() {
        Instant now = clock.instant();
        Instant minute = now.truncatedTo(ChronoUnit.MINUTES);
        if (minute.equals(lastSampled)) {
            return 0;
        }
        lastSampled = minute;
        List<RefreshMinutes.Minute> taken = recent(minutes.takeEnded(now), now);
        Instant ended = minute.minus(1, ChronoUnit.MINUTES);
        int written = write("sampling the trends", taken, connection -> {
            // the backlog is the shared queue's: the first instance to sample a minute counts it (a grouped scan of
            // the queue), the others write only their refreshes; two that sample at once both count, harmlessly
            Map<String, ProjectionCounts> backlog = trends.backlogsCounted(connection, catalog.names(), ended)
                    ? null : counts.countsByProjection(connection, now);
            List<TrendSample> samples = samples(ended, backlog, taken);
            trends.add(connection, instanceId, samples);
            return samples.size();
        });
        if (minute.getEpochSecond() / 60 % PRUNE_EVERY == Math.floorMod(instanceId.hashCode(), PRUNE_EVERY)) {
            // instances prune in different minutes, so they do not queue behind each other's deletes
            prune(now.minus(retention));
        }
        return written;
    }

    /**
     * Writes every minute counted so far, the unfinished one included, without a backlog: the engine stops, and a
     * process started again within the minute adds its own half to the same row.
     */
    public synchronized int flush() {
        Instant now = clock.instant();
        List<RefreshMinutes.Minute> taken = recent(minutes.takeAll(), now);
        return write("writing the last trends", taken, connection -> {
            List<TrendSample> samples = taken.stream().map(TrendSampler::withoutBacklog).toList();
            trends.add(connection, instanceId, samples);
            return samples.size();
        });
    }

    /** Minutes the prune would delete at once are not written. */
    private List<RefreshMinutes.Minute> recent(List<RefreshMinutes.Minute> taken, Instant now) {
        Instant oldest = now.minus(retention);
        return taken.stream().filter(minute -> !minute.start().isBefore(oldest)).toList();
    }

    private int write(String what, List<RefreshMinutes.Minute> taken, Transactions.Work<Integer> work) {
        try {
            return Database.call(what, () -> transactions.inNewTransaction(TIMEOUT, work));
        } catch (RuntimeException | Error e) {
            minutes.giveBack(taken);
            throw e;
        }
    }

    private void prune(Instant before) {
        Database.call("pruning the trends", () -> transactions.inNewTransaction(TIMEOUT, connection -> {
            trends.prune(connection, before);
            return nodes.prune(connection, before);
        }));
    }

    /** {@code backlog} {@code null}: another instance counted this minute's, and these samples carry none. */
    private List<TrendSample> samples(Instant ended, Map<String, ProjectionCounts> backlog,
                                      List<RefreshMinutes.Minute> taken) {
        List<TrendSample> samples = new ArrayList<>();
        Set<String> deployed = catalog.names();
        for (String projection : deployed) {
            RefreshMinutes.Minute refreshes = taken.stream()
                    .filter(m -> m.projection().equals(projection) && m.start().equals(ended)).findFirst().orElse(null);
            if (backlog == null) {
                samples.add(new TrendSample(projection, ended, null, null, null,
                        refreshes == null ? 0 : refreshes.completed(), refreshes == null ? 0 : refreshes.failed(),
                        refreshes == null ? null : refreshes.p99Micros(), refreshes == null ? null : refreshes.lagText()));
                continue;
            }
            ProjectionCounts count = backlog.get(projection);
            samples.add(new TrendSample(projection, ended, count == null ? 0L : count.pending(),
                    count == null ? 0L : count.dueNow(), count == null ? 0L : count.failing(),
                    refreshes == null ? 0 : refreshes.completed(), refreshes == null ? 0 : refreshes.failed(),
                    refreshes == null ? null : refreshes.p99Micros(), refreshes == null ? null : refreshes.lagText()));
        }
        for (RefreshMinutes.Minute earlier : taken) {
            if (!earlier.start().equals(ended) || !deployed.contains(earlier.projection())) {
                samples.add(withoutBacklog(earlier));
            }
        }
        return samples;
    }

    private static TrendSample withoutBacklog(RefreshMinutes.Minute minute) {
        return new TrendSample(minute.projection(), minute.start(), null, null, null, minute.completed(),
                minute.failed(), minute.p99Micros(), minute.lagText());
    }
}
