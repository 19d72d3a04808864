package dev.projections.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.Projection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Each projection's settings: which source wins, where each value came from, and what fails the deployment. */
class ProjectionSettingsTest {

    /** A projection with code defaults of its own. */
    record Declaring(String name, Map<String, String> defaultSettings) implements Projection {
        @Override
        public void refresh(String id) {
        }
    }

    private static final Declaring ORDER_SEARCH = new Declaring("order-search", Map.of());
    private static final Declaring CUSTOMER_STATS = new Declaring("customer-stats",
            Map.of("max-attempts", "7", "retry-delay", "2s"));

    private static Settings resolve(SettingSource source, Projection... projections) {
        return ProjectionSettings.resolve(Settings.load(source), source, List.of(projections));
    }

    private static SettingSource source(Map<String, String> system, Map<String, String> environment,
                                        Map<String, String> deployment) {
        Properties systemProperties = new Properties();
        systemProperties.putAll(system);
        Properties deploymentProperties = new Properties();
        deploymentProperties.putAll(deployment);
        return SettingSource.standard(systemProperties, environment, deploymentProperties);
    }

    @Test
    void theProjectionsOwnKeyWinsOverItsCodeWhichWinsOverTheGlobalKeyWhichWinsOverTheDefault() {
        Settings settings = resolve(SettingSource.of(Map.of(
                        "projection.max-attempts", "5",
                        "projection.retry-delay", "3s",
                        "projection.customer-stats.max-attempts", "9")),
                ORDER_SEARCH, CUSTOMER_STATS);

        ProjectionSettings stats = settings.of("customer-stats");
        assertThat(stats.maxAttempts()).as("its own key over its code").isEqualTo(9);
        assertThat(stats.retryDelay()).as("its code over the global key").isEqualTo(Duration.ofSeconds(2));
        assertThat(stats.maxRetryDelay()).as("the default").isEqualTo(Duration.ofMinutes(5));
        assertThat(stats.origins()).containsEntry("max-attempts", "system property projection.customer-stats.max-attempts")
                .containsEntry("retry-delay", "code (" + Declaring.class.getName() + ".defaultSettings())")
                .containsEntry("max-retry-delay", "default");

        ProjectionSettings search = settings.of("order-search");
        assertThat(search.maxAttempts()).as("the global key").isEqualTo(5);
        assertThat(search.retryDelay()).isEqualTo(Duration.ofSeconds(3));
        assertThat(search.origins()).containsEntry("max-attempts", "system property projection.max-attempts (global)");
        assertThat(settings.maxAttempts()).as("the global value itself is unchanged").isEqualTo(5);
    }

    @Test
    void anEnvironmentVariableSetsAProjectionsKeyInMicroProfileConfigsFormAndASystemPropertyOverridesIt() {
        SettingSource source = source(Map.of("projection.order-search.rebuild-page-size", "300"),
                Map.of("PROJECTION_ORDER_SEARCH_REBUILD_PAGE_SIZE", "200",
                        "PROJECTION_CUSTOMER_STATS_SUSPEND_AFTER_FAILING_KEYS", "0"),
                Map.of("projection.customer-stats.suspend-after-failing-keys", "4"));

        Settings settings = resolve(source, ORDER_SEARCH, CUSTOMER_STATS);

        assertThat(settings.of("order-search").rebuildPageSize()).isEqualTo(300);
        assertThat(settings.of("customer-stats").suspendAfterFailingKeys()).as("the environment over the deployment's file")
                .isZero();
        assertThat(settings.of("customer-stats").origins())
                .containsEntry("suspend-after-failing-keys", "environment PROJECTION_CUSTOMER_STATS_SUSPEND_AFTER_FAILING_KEYS");
    }

    @Test
    void eachProjectionHasItsOwnBatchSizeAndACapOnItsDrainersAllButOneOfTheInstancesWhenSeveralAreDeployed() {
        Settings settings = resolve(SettingSource.of(Map.of(
                        "projection.workers", "4",
                        "projection.batch-size", "50",
                        "projection.customer-stats.batch-size", "500",
                        "projection.customer-stats.workers", "4",
                        "projection.customer-stats.lease-time", "30s")),
                ORDER_SEARCH, CUSTOMER_STATS);
        assertThat(settings.of("customer-stats").leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.shortestLeaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.longestLeaseTime()).isEqualTo(Duration.ofMinutes(2));

        assertThat(settings.of("customer-stats").batchSize()).isEqualTo(500);
        assertThat(settings.of("customer-stats").workers()).as("set: up to every drainer").isEqualTo(4);
        assertThat(settings.of("order-search").batchSize()).as("the global key").isEqualTo(50);
        assertThat(settings.of("order-search").workers()).as("unset: one drainer always left to the others")
                .isEqualTo(3);
        assertThat(settings.of("order-search").origins()).containsEntry("workers",
                "default (projection.workers less one: 4 - 1)");

        assertThat(settings.of("order-search").leaseTime()).isEqualTo(Duration.ofMinutes(2));

        Settings alone = resolve(SettingSource.of(Map.of("projection.workers", "4")), ORDER_SEARCH);
        assertThat(alone.of("order-search").workers()).as("the only projection: all of them").isEqualTo(4);
        Settings one = resolve(SettingSource.of(Map.of("projection.workers", "1")), ORDER_SEARCH, CUSTOMER_STATS);
        assertThat(one.of("order-search").workers()).as("never fewer than one").isEqualTo(1);
    }

    @Test
    void aProjectionsWorkersBeyondTheInstancesFailTheDeployment() {
        assertThatThrownBy(() -> resolve(SettingSource.of(Map.of("projection.workers", "4",
                "projection.order-search.workers", "5", "projection.order-search.batch-size", "0")), ORDER_SEARCH))
                .isInstanceOf(InvalidSettingsException.class)
                .satisfies(e -> assertThat(((InvalidSettingsException) e).problems()).containsExactlyInAnyOrder(
                        "projection.order-search.workers must be 1..4, was 5",
                        "projection.order-search.batch-size must be >= 1, was 0"));
    }

    @Test
    void synchronousCommitIsOneOfPostgresValuesUnsetTheDatabasesAndAnotherValueFailsTheDeploymentNamingTheKey() {
        Settings settings = resolve(SettingSource.of(Map.of("projection.synchronous-commit", "off",
                "projection.customer-stats.synchronous-commit", "remote_apply")), ORDER_SEARCH, CUSTOMER_STATS);
        assertThat(settings.of("order-search").synchronousCommit()).as("the global value").isEqualTo("off");
        assertThat(settings.of("customer-stats").synchronousCommit()).as("its own").isEqualTo("remote_apply");
        assertThat(resolve(SettingSource.of(Map.of()), ORDER_SEARCH).of("order-search").synchronousCommit())
                .as("unset: the database's").isNull();

        assertThatThrownBy(() -> resolve(SettingSource.of(Map.of("projection.order-search.synchronous-commit", "fast")),
                ORDER_SEARCH))
                .isInstanceOf(InvalidSettingsException.class)
                .satisfies(e -> assertThat(((InvalidSettingsException) e).problems()).containsExactly(
                        "projection.order-search.synchronous-commit must be one of on, off, local, remote_write, "
                                + "remote_apply, was \"fast\""));
        assertThatThrownBy(() -> Settings.load(SettingSource.of(Map.of("projection.synchronous-commit", "OFF"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.synchronous-commit must be one of on, off, local, remote_write, "
                        + "remote_apply, was \"OFF\"");
    }

    @Test
    void aProjectionNameWithDotsIsReadWhole() {
        Declaring dotted = new Declaring("orders.search", Map.of());
        Settings settings = resolve(SettingSource.of(Map.of("projection.orders.search.max-attempts", "2")), dotted);
        assertThat(settings.of("orders.search").maxAttempts()).isEqualTo(2);
    }

    @Test
    void listsAndThresholdsAreEachProjectionsOwn() {
        Settings settings = resolve(SettingSource.of(Map.of(
                        "projection.non-retryable", "java.lang.ArithmeticException",
                        "projection.order-search.non-retryable", "java.time.DateTimeException",
                        "projection.order-search.back-pressure", "java.util.concurrent.RejectedExecutionException",
                        "projection.order-search.suspend-failure-percent", "90")),
                ORDER_SEARCH, CUSTOMER_STATS);

        assertThat(settings.of("order-search").nonRetryable()).containsExactly("java.time.DateTimeException");
        assertThat(settings.of("order-search").backPressure()).containsExactly("java.util.concurrent.RejectedExecutionException");
        assertThat(settings.of("order-search").suspendFailurePercent()).isEqualTo(90);
        assertThat(settings.of("customer-stats").nonRetryable()).containsExactly("java.lang.ArithmeticException");
        assertThat(settings.of("customer-stats").backPressure()).isEmpty();
        assertThat(settings.of("customer-stats").suspendFailurePercent()).isEqualTo(50);
    }

    @Test
    void everyProblemFailsTogetherNamingKeyAndValue() {
        Declaring badCode = new Declaring("bad-code", Map.of("max-attempts", "none", "colour", "blue"));
        SettingSource source = source(
                Map.of("projection.order-search.retry-delay", "soon",
                        "projection.order-search.lease-time", "1s",
                        "projection.order-search.max-atempts", "3"),
                Map.of(),
                Map.of("projection.ordr-search.max-attempts", "3",
                        "projection.customer-stats.suspend-failure-percent", "101"));

        assertThatThrownBy(() -> resolve(source, ORDER_SEARCH, CUSTOMER_STATS, badCode))
                .isInstanceOf(InvalidSettingsException.class)
                .satisfies(e -> assertThat(((InvalidSettingsException) e).problems()).containsExactlyInAnyOrder(
                        "projection.ordr-search.max-attempts=3 names no deployed projection (deployed: bad-code, "
                                + "customer-stats, order-search)",
                        "projection.order-search.lease-time must be at least 2s (a refresh's timeout, at least 1 s, "
                                + "must fit in half the lease), was 1s",
                        "projection.order-search.max-atempts=3: max-atempts is not a setting a projection can have; "
                                + "these are: " + String.join(", ", ProjectionSettings.KEYS),
                        "projection.order-search.retry-delay must be a duration such as 500ms, 30s, 5m or 1h, was \"soon\"",
                        "projection.customer-stats.suspend-failure-percent must be 1..100, was 101",
                        "max-attempts in " + Declaring.class.getName() + ".defaultSettings() must be a whole number "
                                + "0..1000000, was \"none\"",
                        Declaring.class.getName() + ".defaultSettings() of projection bad-code declares \"colour\", which "
                                + "is not a setting a projection can have; these are: " + String.join(", ",
                                ProjectionSettings.KEYS)));
    }

    @Test
    void aKeyNamingNoDeployedProjectionInASourceTheServerSharesIsOnlyWarnedAbout() {
        // another application on the same server may have a projection of that name
        SettingSource source = source(Map.of("projection.other-app.max-attempts", "3"),
                Map.of("PROJECTION_OTHER_APP_RETRY_DELAY", "1s"), Map.of());

        Settings settings = resolve(source, ORDER_SEARCH);

        assertThat(settings.of("order-search").maxAttempts()).isEqualTo(Settings.NEVER_PARK);
    }

    @Test
    void projectionNamesWhoseVariablesCannotBeToldApartFailTheDeployment() {
        assertThatThrownBy(() -> resolve(SettingSource.NONE, new Declaring("a.b", Map.of()), new Declaring("a-b", Map.of()),
                new Declaring("max", Map.of())))
                .isInstanceOf(InvalidSettingsException.class)
                .satisfies(e -> assertThat(((InvalidSettingsException) e).problems()).containsExactlyInAnyOrder(
                        "projections a-b and a.b would read the same environment variables (PROJECTION_A_B_…): rename one",
                        "projection max would read its retry-delay from PROJECTION_MAX_RETRY_DELAY, which is a global "
                                + "key's variable: rename the projection"));
    }

    @Test
    void anEmptyValueIsUnsetAndZeroMaxAttemptsOptsAProjectionOutOfTheGlobalBudget() {
        Settings settings = resolve(SettingSource.of(Map.of("projection.max-attempts", "3",
                        "projection.non-retryable", "java.lang.ArithmeticException",
                        "projection.order-search.non-retryable", " ",
                        "projection.order-search.max-attempts", "0")),
                ORDER_SEARCH);

        ProjectionSettings search = settings.of("order-search");
        assertThat(search.nonRetryable()).containsExactly("java.lang.ArithmeticException");
        assertThat(search.origins().get("non-retryable")).isEqualTo("system property projection.non-retryable (global)");
        assertThat(search.maxAttempts()).isZero();
        assertThat(search.parksAfter(100)).isFalse();
    }

    @Test
    void aProjectionsRetryDelayMustNotExceedItsCapWhereverEachCameFrom() {
        assertThatThrownBy(() -> resolve(SettingSource.of(Map.of("projection.order-search.retry-delay", "10m")),
                ORDER_SEARCH))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.order-search.retry-delay (10m) must not exceed "
                        + "projection.order-search.max-retry-delay (5m) for projection order-search");
    }

    @Test
    void globalKeysThatEndLikeAProjectionsKeyAreNotTakenForOne() {
        SettingSource source = source(Map.of("projection.max-retry-delay", "10m", "projection.liquibase.lock-table", "LOCKS"),
                Map.of("PROJECTION_MAX_RETRY_DELAY", "10m", "PROJECTION_TEST_JDBC_URL", "jdbc:h2:mem:x"), Map.of());

        Settings settings = resolve(source, ORDER_SEARCH);

        assertThat(settings.of("order-search").maxRetryDelay()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void aProjectionWithoutSettingsOfItsOwnHasTheGlobalOnes() {
        Settings settings = Settings.from(Map.of("projection.max-attempts", "4")::get);
        assertThat(settings.of("anything").maxAttempts()).isEqualTo(4);
        assertThat(settings.of("anything").parksAfter(4)).isTrue();
        assertThat(settings.of("anything").values()).containsEntry("max-attempts", "4")
                .containsEntry("retry-delay", "5s");
    }

    /** A projection that can be verified. */
    record Checked(String name) implements Projection, dev.projections.Verifiable {
        @Override
        public void refresh(String id) {
        }

        @Override
        public java.util.Set<String> drifted(List<String> ids) {
            return java.util.Set.of();
        }
    }

    @Test
    void aDriftSampleSetForAProjectionThatCannotBeVerifiedFailsTheDeploymentNamingTheKeyAGlobalOneSamplesOnlyThoseThatCan() {
        assertThatThrownBy(() -> resolve(SettingSource.of(Map.of("projection.order-search.verify-per-minute", "60")),
                ORDER_SEARCH, new Checked("checked")))
                .isInstanceOf(InvalidSettingsException.class)
                .satisfies(e -> assertThat(((InvalidSettingsException) e).problems()).containsExactly(
                        "projection.order-search.verify-per-minute=60: projection order-search does not implement "
                                + "dev.projections.Verifiable, so it cannot be sampled for drift"));

        Settings settings = resolve(SettingSource.of(Map.of("projection.verify-per-minute", "30",
                "projection.checked.verify-per-minute", "600")), ORDER_SEARCH, new Checked("checked"));
        assertThat(settings.of("checked").verifyPerMinute()).isEqualTo(600);
        assertThat(settings.of("order-search").verifyPerMinute()).as("global: not sampled, not refused").isEqualTo(30);
        assertThatThrownBy(() -> resolve(SettingSource.of(Map.of("projection.checked.verify-per-minute", "-1")),
                new Checked("checked"))).hasMessageContaining("projection.checked.verify-per-minute");
    }
}
