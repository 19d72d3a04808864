package dev.projections.refresh;

import dev.projections.lifecycle.ProjectionResumed;
import dev.projections.store.ClaimedMark;
import dev.projections.store.ControlTable;
import dev.projections.store.ProbeClaims;
import dev.projections.store.Suspension;
import dev.projections.store.Tables;
import dev.projections.config.Settings;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/** The sweep's probes of suspended projections, whose success lifts a suspension on every instance. */
final class SuspensionProbes {

    private static final Logger LOG = Logger.getLogger(SuspensionProbes.class.getName());

    private final ControlTable control;
    private final ProbeClaims probes;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final Settings settings;
    private final ProjectionCatalog catalog;
    private final LeasePolicy leases;
    private final BatchRefresher refresher;
    private final LifecycleAnnouncer lifecycle;
    private final BooleanSupplier stopping;

    SuspensionProbes(Tables store, ShortTransactions shortTransactions, Clock clock, Settings settings,
                     ProjectionCatalog catalog, LeasePolicy leases, BatchRefresher refresher,
                     LifecycleAnnouncer lifecycle, BooleanSupplier stopping) {
        this.control = store.control();
        this.probes = store.probes();
        this.shortTransactions = shortTransactions;
        this.clock = clock;
        this.settings = settings;
        this.catalog = catalog;
        this.leases = leases;
        this.refresher = refresher;
        this.lifecycle = lifecycle;
        this.stopping = stopping;
    }

    /**
     * The sweep's probes (docs/contract.md §6): for each suspended projection this instance deploys whose turn it
     * takes (one instance per {@code probe-interval}), one due mark is refreshed despite the suspension; when it
     * succeeds the suspension is lifted on every instance. With nothing due there is nothing to learn from: it
     * stays. Returns those lifted.
     */
    List<String> probeSuspended() {
        List<String> lifted = new ArrayList<>();
        Map<String, Suspension> suspended = shortTransactions.run("read suspensions",
                control::suspensions);
        for (String projection : suspended.keySet()) {
            if (!catalog.names().contains(projection) || stopping.getAsBoolean()) {
                continue;
            }
            // what this instance saw before or during the suspension must not trip it again once it is lifted
            refresher.forgetFailures(projection);
            Instant now = clock.instant();
            String token = UUID.randomUUID().toString();
            // the turn and the claim in one transaction: an operator's pause committed meanwhile gets no probe
            ClaimedMark probe = shortTransactions.run("claim a probe",
                    c -> control.takeProbeTurn(c, projection, now, settings.probeInterval())
                            ? probes.claim(c, projection, now, leases.of(projection), token) : null);
            if (probe == null || !refresher.probe(probe)) {
                continue;
            }
            if (shortTransactions.run("lift a suspension",
                    c -> control.liftSuspension(c, projection))) {
                LOG.info("projection " + projection + " resumed on every instance: a probe refresh of " + probe.key()
                        + " succeeded");
                lifted.add(projection);
                catalog.claimableChanged();
                lifecycle.announce(new ProjectionResumed(projection,
                        ProjectionResumed.PROBE, clock.instant()));
            }
        }
        return lifted;
    }
}
