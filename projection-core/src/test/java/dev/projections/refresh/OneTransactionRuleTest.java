package dev.projections.refresh;

import static dev.projections.refresh.NamedProjection.named;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.config.ProjectionSettings;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.spi.RefreshTracing;
import dev.projections.store.Dialect;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Which projections' lone handed keys are refreshed in one transaction with their claim (docs/design.md D53). */
class OneTransactionRuleTest {

    @Test
    void aProjectionWithShortRefreshesGoesInOneTransactionOnceOneRefreshWasTimed() {
        OneTransactionRefresh rule = rule(Map.of(), true, true, RefreshTracing.NONE);
        assertThat(rule.applies("orders")).as("no refresh timed yet").isFalse();

        times.took("orders", Duration.ofMillis(3));

        assertThat(rule.applies("orders")).isTrue();
        assertThat(rule.applies("customers")).as("another projection, not timed").isFalse();
    }

    @Test
    void theDatabaseDecidesWhereTheSettingIsUnsetAndH2NeverDoesIt() {
        OneTransactionRefresh mariaDb = timed(rule(Map.of(), true, false, RefreshTracing.NONE));
        assertThat(mariaDb.applies("orders")).as("MariaDB, unset").isFalse();
        assertThat(timed(rule(Map.of(Settings.ONE_TRANSACTION, "true"), true, false, RefreshTracing.NONE))
                .applies("orders")).as("MariaDB, turned on").isTrue();
        assertThat(timed(rule(Map.of(Settings.ONE_TRANSACTION, "true"), false, false, RefreshTracing.NONE))
                .applies("orders")).as("H2, turned on").isFalse();
    }

    @Test
    void theSettingTurnsItOffGloballyOrForOneProjection() {
        assertThat(timed(rule(Map.of(Settings.ONE_TRANSACTION, "false"), true, true, RefreshTracing.NONE))
                .applies("orders")).isFalse();
        OneTransactionRefresh perProjection = timed(rule(Map.of(ProjectionSettings.key("orders",
                ProjectionSettings.ONE_TRANSACTION), "false"), true, true, RefreshTracing.NONE));
        assertThat(perProjection.applies("orders")).isFalse();
        assertThat(perProjection.applies("customers")).isTrue();
    }

    @Test
    void tracedRefreshesKeepTheirTwoTransactions() {
        assertThat(timed(rule(Map.of(), true, true, tracing())).applies("orders")).isFalse();
    }

    @Test
    void aProjectionWhoseRefreshesGrowLongGoesThroughTwoTransactionsUntilTheyAreShortAgain() {
        OneTransactionRefresh rule = timed(rule(Map.of(), true, true, RefreshTracing.NONE));

        times.took("orders", Duration.ofMillis(400));
        assertThat(rule.applies("orders")).as("after a 400 ms refresh").isFalse();
        assertThat(rule.applies("customers")).as("another projection").isTrue();

        int shortOnes = 0;
        while (!rule.applies("orders")) {
            times.took("orders", Duration.ofMillis(2));
            shortOnes++;
        }
        assertThat(shortOnes).as("short refreshes before it comes back").isBetween(2, 12);
        times.took("orders", Duration.ofMillis(30));
        assertThat(rule.applies("orders")).as("one refresh of 30 ms keeps it").isTrue();
    }

    /**
     * A server just started refreshes slowly for a while (a cold JIT, an empty pool): those first refreshes must not
     * keep the path off for long once refreshes are short (issue 47 item 3), while one slow refresh among short ones
     * does not take it away.
     */
    @Test
    void theSlowFirstRefreshesOfAColdStartAreSoonOutweighed() {
        OneTransactionRefresh rule = rule(Map.of(), true, true, RefreshTracing.NONE);
        times.took("orders", Duration.ofMillis(300));
        int shortOnes = 0;
        while (!rule.applies("orders")) {
            times.took("orders", Duration.ofMillis(2));
            shortOnes++;
        }
        assertThat(shortOnes).as("short refreshes after a first one of 300 ms").isLessThanOrEqualTo(3);

        for (int settle = 0; settle < 5; settle++) {
            times.took("orders", Duration.ofMillis(2));
        }
        times.took("orders", Duration.ofMillis(150));
        assertThat(rule.applies("orders")).as("one refresh of 150 ms among short ones").isTrue();
        times.took("orders", Duration.ofMillis(150));
        times.took("orders", Duration.ofMillis(150));
        assertThat(rule.applies("orders")).as("a run of them").isFalse();
    }

    /**
     * Once past its first refreshes, a projection's average rests at its refreshes' mean: one whose refreshes are
     * short but every fifth 300 ms long (a mean of 76 ms) mostly goes through two transactions, where a business commit
     * of the key being refreshed does not wait for the refresh.
     */
    @Test
    void aProjectionWithOftenLongRefreshesMostlyKeepsItsTwoTransactions() {
        OneTransactionRefresh rule = rule(Map.of(), true, true, RefreshTracing.NONE);
        int checks = 0;
        int admitted = 0;
        for (int round = 0; round < 200; round++) {
            for (int millis : new int[] {20, 20, 20, 20, 300}) {
                times.took("orders", Duration.ofMillis(millis));
                if (round >= 100) {
                    checks++;
                    admitted += rule.applies("orders") ? 1 : 0;
                }
            }
        }
        assertThat(admitted).as("checks admitted of %d", checks).isLessThan(checks / 2);
    }

    @Test
    void aProjectionPairsOnlyWhileItsRefreshesTakeAtMostHalfOfALoneKeysBound() {
        OneTransactionRefresh rule = rule(Map.of(), true, true, RefreshTracing.NONE);
        times.took("orders", Duration.ofMillis(40));
        times.took("customers", Duration.ofMillis(4));

        assertThat(rule.applies("orders")).as("a lone key: within 50 ms").isTrue();
        assertThat(rule.pairs("orders")).as("in a pair: over 25 ms").isFalse();
        assertThat(rule.pairs("customers")).isTrue();
        rule.restFromPairs("customers");
        assertThat(rule.pairs("customers")).as("resting after its refresh threw in a pair").isFalse();
        assertThat(rule.applies("customers")).as("its lone keys still go in one transaction").isTrue();
    }

    /** A pair's projections are timed apart: each its own refresh and half of the claim, ack and commit. */
    @Test
    void aPairsTimeIsSharedByEachMarksOwnRefresh() {
        Duration[] spent = {Duration.ofMillis(40), Duration.ofMillis(4)};

        assertThat(OneTransactionRefresh.share(spent, 0, Duration.ofMillis(50), 2)).isEqualTo(Duration.ofMillis(43));
        assertThat(OneTransactionRefresh.share(spent, 1, Duration.ofMillis(50), 2)).isEqualTo(Duration.ofMillis(7));
        assertThat(OneTransactionRefresh.share(new Duration[] {Duration.ofMillis(5)}, 0, Duration.ofMillis(9), 1))
                .as("a lone mark: the whole transaction").isEqualTo(Duration.ofMillis(9));
        assertThat(OneTransactionRefresh.share(new Duration[] {Duration.ofMillis(5), null}, 0, Duration.ofMillis(9), 2))
                .as("the second never reached").isEqualTo(Duration.ofMillis(7));
    }

    /** {@code rule} with one short refresh of each projection timed. */
    private OneTransactionRefresh timed(OneTransactionRefresh rule) {
        times.took("orders", Duration.ofMillis(2));
        times.took("customers", Duration.ofMillis(2));
        return rule;
    }

    private final RefreshTimes times = new RefreshTimes();

    private OneTransactionRefresh rule(Map<String, String> values, boolean databaseAllows, boolean databaseDefault,
                                       RefreshTracing tracing) {
        Properties deployment = new Properties();
        deployment.putAll(values);
        SettingSource source = SettingSource.standard(new Properties(), Map.of(), deployment);
        Settings settings = ProjectionSettings.resolve(Settings.load(source), source,
                List.of(named("orders"), named("customers")));
        return new OneTransactionRefresh(null, null, Clock.systemUTC(), settings, null, null,
                new LeasePolicy(settings.leaseTime()), tracing, databaseAllows, databaseDefault, null,
                (mark, outcome, at, took) -> { }, times, new RefreshCommits(settings, Dialect.POSTGRESQL));
    }

    private static RefreshTracing tracing() {
        return new RefreshTracing() {
            @Override
            public boolean enabled() {
                return true;
            }

            @Override
            public String currentTraceparent() {
                return null;
            }

            @Override
            public Span start(String projection, String tenant, int keys, List<String> traceparents) {
                return Span.NONE;
            }
        };
    }
}
