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
import java.util.Set;
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
 * after tenant of the {@code TenantDirectory} (tenant "" without one), round again from the start once all were seen.
 * Every key is so checked within {@code keys / verify-per-minute} minutes (and a sweep per tenant at most), a bound a
 * random draw would only give as an expectation.
 * <p>
 * A turn checks what the time since the last one allows (at most one minute's worth and a rebuild page) in one tenant,
 * and moves the sample's time by what it checked; a sweep takes turns until the allowance is spent, across tenants. A
 * turn holds the sample's row locked ({@link DriftTable#lock}, {@code SKIP LOCKED}): one instance of the cluster walks
 * a projection at a time and the others skip it at once. The turn's marks, the new position and the drift found commit
 * together; a turn that fails for a transient reason is taken again, one that fails for the projection's reason (a
 * page {@code drifted} cannot check, a tenant that cannot be entered or listed) is stepped over, logged, so one bad
 * page never stops the walk.
 */
public final class DriftSampler {

    private static final Logger LOG = Logger.getLogger(DriftSampler.class.getName());
    private static final Duration MINUTE = Duration.ofMinutes(1);
    /** Turns one sweep takes for one projection: tenants it may cross before the next sweep. */
    static final int TURNS_PER_SWEEP = 20;

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

    /** Takes the turns that are due of each sampled projection this instance may take; the keys it checked. */
    public int sample() {
        int checked = 0;
        for (String name : catalog.claimable()) {
            int rate = rates.applyAsInt(name);
            if (rate > 0 && catalog.byName(name) instanceof Verifiable) {
                try {
                    checked += sampleOne(name, rate);
                } catch (RuntimeException e) {
                    // the database, or the tenant directory: the next projection's sample may still be taken, and the
                    // next sweep takes this one again
                    LOG.log(Level.WARNING, "PRJ206: drift sample of {0} not taken: {1}", new Object[] {name,
                            FailureText.of(e)});
                }
            }
        }
        return checked;
    }

    /** One projection's turns that are due, up to {@link #TURNS_PER_SWEEP}; the keys they checked. */
    int sampleOne(String name, int rate) {
        List<String> walked = tenants(); // read outside any tenant's scope and transaction
        if (walked.isEmpty()) {
            return 0; // a directory without tenants: nothing to walk
        }
        int checked = 0;
        for (int turn = 0; turn < TURNS_PER_SWEEP; turn++) {
            Turn taken = turn(name, rate, walked);
            checked += taken.checked();
            if (!taken.more()) {
                break;
            }
        }
        return checked;
    }

    /** What a turn did: the keys it checked, and whether the allowance lets another turn follow at once. */
    private record Turn(int checked, boolean more) {
        static final Turn NONE = new Turn(0, false);
    }

    /** Where a turn walks: {@code tenant} after {@code after}, with {@code keys} allowed from {@code from}. */
    private record Plan(SampleTurn seen, String tenant, String after, int keys, Instant from) {
    }

    private Turn turn(String name, int rate, List<String> walked) {
        Instant now = clock.instant();
        SampleTurn seen = shortTransactions.run("drift sample", connection -> {
            Optional<SampleTurn> row = drift.read(connection, name);
            if (row.isEmpty()) {
                drift.start(connection, name, now); // the first turn is a minute's share from now
            }
            return row.orElse(null);
        });
        if (seen == null) {
            return Turn.NONE;
        }
        Instant from = seen.sampledAt().isBefore(now.minus(MINUTE)) ? now.minus(MINUTE) : seen.sampledAt();
        long allowed = Duration.between(from, now).toNanos() * rate / MINUTE.toNanos();
        int keys = (int) Math.min(allowed, Math.min(rate, pageSizes.applyAsInt(name)));
        if (keys < 1) {
            return Turn.NONE;
        }
        // a tenant gone from the directory (or "" once there is one) is left for the next one in order
        boolean known = walked.contains(seen.tenant());
        Plan plan = new Plan(seen, known ? seen.tenant() : following(seen.tenant(), walked),
                known ? seen.after() : null, keys, from);
        Projection projection = catalog.byName(name);
        Found found;
        try {
            found = TenantScoped.run(tenantScope, plan.tenant(), () -> transactions.inNewTransaction(timeout,
                    connection -> walk(connection, name, projection, plan, rate, walked, now)),
                    closing -> LOG.log(Level.WARNING, "PRJ207: TenantScope close failed after a drift sample of {0} [{1}] "
                            + "committed; the sample stands: {2}", new Object[] {name, plan.tenant(),
                            FailureText.of(closing)}));
        } catch (Exception | LinkageError | AssertionError e) {
            if (Transient.is(e)) {
                LOG.log(Level.WARNING, "PRJ208: drift sample of {0} [{1}] after {2} rolled back, taken again at the next "
                        + "sweep: {3}", new Object[] {name, plan.tenant(), plan.after(), FailureText.of(e)});
            } else {
                stepOver(name, plan, rate, walked, e);
            }
            return Turn.NONE;
        }
        if (found == null) {
            return Turn.NONE; // another instance holds the sample, or moved it since it was read
        }
        if (!found.drifted().isEmpty()) {
            stats.driftFound(name, found.drifted().size());
            LOG.log(Level.INFO, "drift sample of {0} [{1}] found {2} of {3} key(s) drifted and re-marked them",
                    new Object[] {name, plan.tenant(), found.drifted().size(), found.checked()});
            lifecycle.announce(new DriftFound(name, plan.tenant(), found.drifted(), null, now));
        }
        // a tenant that ended before the allowance did: the rest goes to the next tenant at once
        return new Turn(found.checked(), found.checked() < keys && walked.size() > 1);
    }

    private record Found(int checked, List<String> drifted) {
    }

    /** The turn's transaction, in {@code plan}'s tenant; {@code null} when the sample is not this turn's to take. */
    private Found walk(Connection connection, String name, Projection projection, Plan plan, int rate,
                       List<String> walked, Instant now) throws Exception {
        Optional<SampleTurn> locked = drift.lock(connection, name);
        if (locked.isEmpty() || !locked.get().equals(plan.seen())) {
            return null;
        }
        List<String> ids = checkedPage(name, projection.ids(plan.after(), plan.keys()), plan.after(), plan.keys());
        if (ids.isEmpty() && plan.after() != null && walked.size() == 1) {
            ids = checkedPage(name, projection.ids(null, plan.keys()), null, plan.keys()); // round again, in this turn
        }
        List<String> drifted;
        try {
            drifted = RebuildPage.drifted(projection, name, ids);
        } catch (RebuildPage.BadIdsException e) {
            throw new PageFailed(ids.get(ids.size() - 1), e.getCause()); // the projection's: step over this page
        }
        if (!drifted.isEmpty()) {
            Set<String> waiting = drift.waiting(connection, name, plan.tenant(), drifted);
            drifted = drifted.stream().filter(id -> !waiting.contains(id)).toList();
        }
        if (!drifted.isEmpty()) {
            TreeSet<MarkKey> marks = new TreeSet<>();
            drifted.forEach(id -> marks.add(new MarkKey(name, plan.tenant(), id)));
            store.queue().upsert(connection, List.copyOf(marks), PendingQueue.LIVE, now);
            drift.found(connection, name, plan.tenant(), now, FoundBy.SAMPLE, ids.size(), drifted.size());
        }
        // the sample's time moves by what was checked: a rate below the sweep's pace is kept, not rounded away
        Instant next = plan.from().plusNanos(MINUTE.toNanos() * ids.size() / rate);
        if (ids.size() < plan.keys()) {
            drift.advance(connection, name, following(plan.tenant(), walked), null, next); // the tenant's keys were seen
        } else {
            drift.advance(connection, name, plan.tenant(), ids.get(ids.size() - 1), next);
        }
        return new Found(ids.size(), drifted);
    }

    /** {@code ids()}'s page, held to its contract: at most the limit, strictly after the cursor. */
    private static List<String> checkedPage(String name, List<String> ids, String after, int limit) {
        if (ids.size() > limit || !ids.isEmpty() && ids.get(ids.size() - 1).equals(after)) {
            throw new IllegalStateException("ids() of " + name + " returned " + ids.size() + " ids after " + after
                    + " for a limit of " + limit + ", ending at the cursor or past the limit");
        }
        return ids;
    }

    /** {@code drifted()} failed on the page ending at {@code last}, for the projection's reason. */
    private static final class PageFailed extends RuntimeException {
        final String last;

        PageFailed(String last, Throwable cause) {
            super(cause);
            this.last = last;
        }
    }

    /**
     * A turn that failed for the projection's reason: the sample steps over the page {@code drifted} could not check,
     * or, when the tenant could not be entered or its ids listed, over the tenant, so that one bad page or tenant does
     * not stop the walk (it is met again at the next round); the sample's time moves by one key's share, so the
     * failure is not retried within the same sweep.
     */
    private void stepOver(String name, Plan plan, int rate, List<String> walked, Throwable failure) {
        Throwable cause = failure instanceof PageFailed page ? page.getCause() : failure;
        String tenant = failure instanceof PageFailed ? plan.tenant() : following(plan.tenant(), walked);
        String after = failure instanceof PageFailed page ? page.last : null;
        LOG.log(Level.WARNING, "PRJ209: drift sample of {0} [{1}] after {2} failed; the sample goes on after {3} of tenant "
                + "\"{4}\": {5}", new Object[] {name, plan.tenant(), plan.after(), after, tenant, FailureText.of(cause)});
        try {
            shortTransactions.run("drift sample", connection -> {
                Optional<SampleTurn> locked = drift.lock(connection, name);
                if (locked.isPresent() && locked.get().equals(plan.seen())) {
                    drift.advance(connection, name, tenant, after, plan.from().plusNanos(MINUTE.toNanos() / rate));
                }
                return null;
            });
        } catch (DatabaseTroubleException e) {
            LOG.log(Level.WARNING, "PRJ210: drift sample of {0} could not step over the failed turn: {1}",
                    new Object[] {name, FailureText.of(e)});
        }
    }

    /** The tenants a sample walks, in order: the directory's, or "" without one. */
    private List<String> tenants() {
        if (tenants == null) {
            return List.of("");
        }
        return tenants.get().stream().distinct().sorted().toList();
    }

    /** The tenant after {@code tenant} in {@code walked}'s order, the first after the last. */
    private static String following(String tenant, List<String> walked) {
        return walked.stream().filter(t -> t.compareTo(tenant) > 0).findFirst().orElse(walked.get(0));
    }
}
