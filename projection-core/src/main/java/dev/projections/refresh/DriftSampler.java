package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.TenantScope;
import dev.projections.Verifiable;
import dev.projections.lifecycle.DriftFound;
import dev.projections.store.DriftTable;
import dev.projections.store.DriftTable.FoundBy;
import dev.projections.store.DriftTable.SampleTurn;
import dev.projections.store.PendingQueue;
import dev.projections.store.Tables;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The sweep's continuous drift sample (docs/design.md D58): for each {@link Verifiable} projection with
 * {@code projection.<name>.verify-per-minute} above 0, checks that many keys a minute with
 * {@link Verifiable#drifted} and re-marks what differs, so the ordinary refresh repairs it. The sample is a rolling
 * walk, not a random draw: the next keys are those after where the last turn stopped ({@link Projection#ids}), tenant
 * after tenant, round again from the start once all were seen. Every key is so checked within
 * {@code keys / verify-per-minute} minutes, a bound a random draw would only give as an expectation. A turn checks
 * what the minutes since the last one allow (at most one minute's worth and a rebuild page), and is taken by one
 * instance of the cluster at a time ({@link DriftTable#takeTurn}); the turn, the marks, the new position and the drift
 * found commit together, so a turn that fails is taken again from where it started.
 */
public final class DriftSampler {

    private static final Logger LOG = Logger.getLogger(DriftSampler.class.getName());
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final Tables store;
    private final DriftTable drift;
    private final Transactions transactions;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final ProjectionCatalog catalog;
    private final TenantScope tenantScope;
    /** The application's tenants, for a sample that walks them all; {@code null}: no directory, only tenant "". */
    private final Supplier<List<String>> tenants;
    private final ToIntFunction<String> rates;
    private final ToIntFunction<String> pageSizes;
    private final Duration timeout;
    private final EngineStats stats;
    private final LifecycleAnnouncer lifecycle;

    public DriftSampler(Tables store, Transactions transactions, Clock clock, ProjectionCatalog catalog,
                        TenantScope tenantScope, Supplier<List<String>> tenants, ToIntFunction<String> rates,
                        ToIntFunction<String> pageSizes, Duration lease, EngineStats stats,
                        LifecycleAnnouncer lifecycle) {
        this.store = store;
        this.drift = store.drift();
        this.transactions = transactions;
        this.shortTransactions = new ShortTransactions(transactions, new LeasePolicy(lease));
        this.clock = clock;
        this.catalog = catalog;
        this.tenantScope = tenantScope;
        this.tenants = tenants;
        this.rates = rates;
        this.pageSizes = pageSizes;
        this.timeout = lease.dividedBy(2);
        this.stats = stats;
        this.lifecycle = lifecycle;
    }

    /** Takes each sampled projection's turn that is due and not taken by another instance; the keys it checked. */
    public int sample() {
        int checked = 0;
        for (String name : catalog.claimable()) {
            int rate = rates.applyAsInt(name);
            if (rate > 0 && catalog.byName(name) instanceof Verifiable) {
                checked += sampleOne(name, rate);
            }
        }
        return checked;
    }

    /** One projection's turn, if due; the keys it checked. Its failure is logged, and the turn is taken again. */
    int sampleOne(String name, int rate) {
        Instant now = clock.instant();
        SampleTurn seen = shortTransactions.run("drift sample", connection -> {
            Optional<SampleTurn> row = drift.read(connection, name);
            if (row.isEmpty()) {
                drift.start(connection, name, now); // the first turn is a minute's share from now
            }
            return row.orElse(null);
        });
        if (seen == null) {
            return 0;
        }
        Instant from = seen.sampledAt().isBefore(now.minus(MINUTE)) ? now.minus(MINUTE) : seen.sampledAt();
        long allowed = Duration.between(from, now).toNanos() * rate / MINUTE.toNanos();
        int keys = (int) Math.min(allowed, Math.min(rate, pageSizes.applyAsInt(name)));
        if (keys < 1) {
            return 0;
        }
        // the next turn's time moves by what this one checks, so a rate below the sweep's pace is kept, not rounded away
        Instant next = from.plusNanos(MINUTE.toNanos() * keys / rate);
        Projection projection = catalog.byName(name);
        try {
            Found found = TenantScoped.run(tenantScope, seen.tenant(), () -> transactions.inNewTransaction(timeout,
                    connection -> turn(connection, name, projection, seen, next, keys, now)),
                    closing -> LOG.log(Level.WARNING, "TenantScope close failed after a drift sample of {0} [{1}] "
                            + "committed; the sample stands: {2}", new Object[] {name, seen.tenant(),
                            FailureText.of(closing)}));
            if (found.drifted().isEmpty()) {
                return found.checked();
            }
            stats.driftFound(name, found.drifted().size());
            LOG.log(Level.INFO, "drift sample of {0} [{1}] found {2} of {3} key(s) drifted and re-marked them",
                    new Object[] {name, seen.tenant(), found.drifted().size(), found.checked()});
            lifecycle.announce(new DriftFound(name, seen.tenant(), found.drifted(), null, now));
            return found.checked();
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.WARNING, "drift sample of {0} [{1}] after {2} failed and is taken again at the next sweep: "
                    + "{3}", new Object[] {name, seen.tenant(), seen.after(), FailureText.of(e)});
            return 0;
        }
    }

    private record Found(int checked, List<String> drifted) {
    }

    private Found turn(Connection connection, String name, Projection projection,
                       SampleTurn seen, Instant next, int keys, Instant now) throws Exception {
        if (!drift.takeTurn(connection, name, seen, next)) {
            return new Found(0, List.of()); // another instance took this turn
        }
        List<String> ids = projection.ids(seen.after(), keys);
        String tenant = seen.tenant();
        if (ids.isEmpty() && seen.after() != null && nextTenant(tenant).equals(tenant)) {
            ids = projection.ids(null, keys); // the last turn ended at the last key: round again, in this turn
        }
        List<String> drifted = RebuildPage.drifted(projection, name, ids);
        if (!drifted.isEmpty()) {
            TreeSet<MarkKey> marks = new TreeSet<>();
            drifted.forEach(id -> marks.add(new MarkKey(name, seen.tenant(), id)));
            store.queue().upsert(connection, List.copyOf(marks), PendingQueue.LIVE, now);
            drift.found(connection, name, seen.tenant(), now, FoundBy.SAMPLE, ids.size(), drifted.size());
        }
        if (ids.size() < keys) {
            drift.moveTo(connection, name, nextTenant(seen.tenant()), null); // this tenant's keys were all seen
        } else {
            drift.moveTo(connection, name, seen.tenant(), ids.get(ids.size() - 1));
        }
        return new Found(ids.size(), drifted);
    }

    /** The tenant after {@code tenant} in the directory's order, the first after the last; "" without a directory. */
    private String nextTenant(String tenant) {
        if (tenants == null) {
            return "";
        }
        List<String> all = tenants.get().stream().sorted().toList();
        if (all.isEmpty()) {
            return "";
        }
        return all.stream().filter(t -> t.compareTo(tenant) > 0).findFirst().orElse(all.get(0));
    }
}
