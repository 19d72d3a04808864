package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.RefreshOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code projection.<name>.lease-time} (docs/design.md D45): a turn claims its projection's marks with that
 * projection's lease, and the rule that starts a refresh only with half a lease and the margin left reads it too.
 */
class ProjectionLeaseTest {

    /** What each refresh saw of its own mark: the lease its claim set. */
    private final Map<String, Instant> leaseSeen = new ConcurrentHashMap<>();
    private EngineHarness harness;

    private Projection seeing(String name) {
        return new Projection() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void refresh(String id) throws Exception {
                leaseSeen.put(name, harness.row(new MarkKey(name, "", id)).claimedUntil());
            }
        };
    }

    @Test
    void eachProjectionsMarksAreClaimedWithItsOwnLease() throws Exception {
        harness = new EngineHarness("projection-lease", Map.of("projection.lease-time", "2m",
                "projection.short.lease-time", "4s"), seeing("short"), seeing("long"));
        harness.mark("short", "1");
        harness.mark("long", "1");
        Instant before = harness.clock.instant();

        harness.newEngine().drain();

        assertThat(Duration.between(before, leaseSeen.get("short"))).as("its own 4 s")
                .isBetween(Duration.ofSeconds(4), Duration.ofSeconds(9));
        assertThat(Duration.between(before, leaseSeen.get("long"))).as("the global 2 min")
                .isBetween(Duration.ofMinutes(2), Duration.ofMinutes(2).plusSeconds(5));
        assertThat(harness.pending()).isZero();
    }

    /**
     * The engine review's E5: the time a refresh spends before its transaction (the trace read, which waits for a
     * connection; the tenant scope's entry) must not stretch the transaction past its lease. Here the scope's first
     * entry takes 55 s of a 2 min lease: the refresh judged at the claim would run with a 60 s timeout and 65 s left.
     * The lease is renewed instead, and the refresh runs at once, inside it (given back, a mark could come back to the
     * same wait for ever).
     */
    @ParameterizedTest(name = "{0} mark(s)")
    @ValueSource(ints = {1, 2})
    void aRefreshWhosePreparationAteItsLeaseRenewsItAndEveryRefreshEndsInsideItsLease(int marks)
            throws Exception {
        java.util.List<String> refreshedIn = new java.util.concurrent.CopyOnWriteArrayList<>();
        Projection timed = new Projection() {
            @Override
            public String name() {
                return "timed";
            }

            @Override
            public void refresh(String id) throws Exception {
                EngineHarness.Transaction transaction = harness.transaction.get();
                Instant leaseUntil = harness.row(new MarkKey("timed", "acme", id)).claimedUntil();
                Duration fits = Duration.between(transaction.began(), leaseUntil).minus(LeaseMargin.of(Duration.ofMinutes(2)));
                assertThat(transaction.timeout()).as("the refresh's timeout, against the lease left when it began")
                        .isLessThanOrEqualTo(fits);
                refreshedIn.add(id);
            }
        };
        harness = new EngineHarness("projection-lease-fit-" + marks, Map.of("projection.lease-time", "2m"), timed);
        java.util.concurrent.atomic.AtomicBoolean slowOnce = new java.util.concurrent.atomic.AtomicBoolean(true);
        harness.tenantScope = tenant -> {
            if (slowOnce.getAndSet(false)) {
                harness.clock.advance(Duration.ofSeconds(55));
            }
            return () -> { };
        };
        java.util.List<MarkKey> keys = new java.util.ArrayList<>();
        for (int i = 1; i <= marks; i++) {
            keys.add(harness.mark("timed", "acme", Integer.toString(i)));
        }

        harness.newEngine().drain();

        assertThat(refreshedIn).as("each refreshed once").hasSize(marks);
        assertThat(harness.pending()).isZero();
        for (MarkKey key : keys) {
            assertThat(harness.outcomes(key)).as("renewed: no failure").containsExactly(RefreshOutcome.SUCCESS);
        }
    }

    @Test
    void aMarkIsStartedOnlyWithHalfItsProjectionsLeaseAndTheMarginLeft() {
        LeasePolicy leases = new LeasePolicy(Duration.ofMinutes(2),
                projection -> projection.equals("short") ? Duration.ofSeconds(4) : Duration.ofMinutes(2));
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        // 4 s: half is 2 s, the margin 0.4 s; 2 min: half is 60 s, the margin 10 s
        assertThat(leases.leftToStart(claimed("short", now.plusMillis(2_400)), now)).isTrue();
        assertThat(leases.leftToStart(claimed("short", now.plusMillis(2_399)), now)).isFalse();
        assertThat(leases.leftToStart(claimed("long", now.plusSeconds(3)), now)).isFalse();
        assertThat(leases.refreshTimeout(java.util.List.of(claimed("short", now.plusSeconds(4))), now))
                .as("half its lease").isEqualTo(Duration.ofSeconds(2));
        assertThat(leases.refreshTimeout(java.util.List.of(claimed("long", now.plusSeconds(120))), now))
                .isEqualTo(Duration.ofMinutes(1));
    }

    private static dev.projections.store.ClaimedMark claimed(String projection, Instant leaseUntil) {
        return new dev.projections.store.ClaimedMark(new MarkKey(projection, "", "1"), "g", "token",
                leaseUntil.minusSeconds(1), leaseUntil, 0, 0);
    }
}
