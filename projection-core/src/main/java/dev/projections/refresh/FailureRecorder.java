package dev.projections.refresh;

import dev.projections.config.ProjectionSettings;
import dev.projections.config.Settings;
import dev.projections.lifecycle.MarkParked;
import dev.projections.store.ClaimedMark;
import dev.projections.store.HeldClaims;
import java.time.Clock;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Records a failed refresh on its mark (docs/contract.md §4 step 5): retried after the backoff its attempts give, or
 * parked until an operator acts when the {@link ParkingPolicy} says so. A mark whose claim is no longer this
 * drainer's (taken back, marked again meanwhile) is left as it is: it is due again anyway.
 */
final class FailureRecorder {

    private static final Logger LOG = Logger.getLogger(FailureRecorder.class.getName());

    private final HeldClaims claims;
    private final ShortTransactions shortTransactions;
    private final Clock clock;
    private final Settings settings;
    private final LifecycleAnnouncer lifecycle;

    FailureRecorder(HeldClaims claims, ShortTransactions shortTransactions, Clock clock, Settings settings,
                    LifecycleAnnouncer lifecycle) {
        this.lifecycle = lifecycle;
        this.claims = claims;
        this.shortTransactions = shortTransactions;
        this.clock = clock;
        this.settings = settings;
    }

    void record(ClaimedMark mark, Throwable failure) {
        String error = FailureText.of(failure);
        int attempts = mark.attempts() + 1;
        ProjectionSettings own = settings.of(mark.key().projection()); // its max-attempts, non-retryable, retry delays
        boolean park = new ParkingPolicy(own).parks(failure, attempts);
        Backoff backoff = Backoff.of(own);
        LOG.log(Level.WARNING, park ? "PRJ116: refresh of {0} failed (attempt {1}), parked until an operator acts: {2}"
                        : "PRJ115: refresh of {0} failed (attempt {1}): {2}", new Object[] {mark.key(), attempts, error});
        boolean recorded = shortTransactions.run("record failure", connection -> {
            Instant now = clock.instant();
            return park ? claims.park(connection, mark, error, now)
                    : claims.recordFailure(connection, mark, error, now, now.plus(backoff.delayAfter(attempts)));
        });
        if (!recorded) {
            LOG.log(Level.FINE, "failure of {0} not recorded: the claim was no longer mine; marked again", mark.key());
        } else if (park) {
            lifecycle.announce(new MarkParked(mark.key().projection(), mark.key().tenantId(), mark.key().entityId(), attempts,
                    error, clock.instant()));
        }
    }
}
