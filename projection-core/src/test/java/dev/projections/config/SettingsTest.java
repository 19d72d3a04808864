package dev.projections.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void defaultsAreThoseOfTheSpec() {
        Settings settings = Settings.defaults();
        assertThat(settings.enabled()).isTrue();
        assertThat(settings.autoRefresh()).isTrue();
        assertThat(settings.processing()).isTrue();
        assertThat(settings.wakeUpInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(settings.schema()).isEqualTo(Settings.SchemaMode.UPDATE);
        assertThat(settings.sweepInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.batchSize()).isEqualTo(100);
        assertThat(settings.workers()).isEqualTo(4);
        assertThat(settings.retryDelay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.maxRetryDelay()).isEqualTo(Duration.ofMinutes(5));
        assertThat(settings.leaseTime()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void aSystemPropertyWinsOverTheEnvironmentWhichWinsOverTheDeploymentFile() {
        // an operator overrides a packaged value at start, without repackaging (MicroProfile Config's order)
        Properties system = new Properties();
        system.setProperty("projection.batch-size", "20");
        Properties deployment = new Properties();
        deployment.setProperty("projection.batch-size", "10");
        deployment.setProperty("projection.workers", "2");
        deployment.setProperty("projection.lease-time", "1m");
        deployment.setProperty("projection.retry-delay", "7s");
        Map<String, String> environment = Map.of("PROJECTION_BATCH_SIZE", "30", "PROJECTION_WORKERS", "5");

        Settings settings = Settings.from(SettingSource.standard(system, environment, deployment)::value);

        assertThat(settings.batchSize()).as("system property over environment and file").isEqualTo(20);
        assertThat(settings.workers()).as("environment over file").isEqualTo(5);
        assertThat(settings.leaseTime()).as("file over default").isEqualTo(Duration.ofMinutes(1));
        assertThat(settings.retryDelay()).isEqualTo(Duration.ofSeconds(7));
        assertThat(settings.maxRetryDelay()).as("default").isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void environmentNamesAreUpperCaseWithUnderscores() {
        assertThat(Settings.environmentName("projection.max-retry-delay")).isEqualTo("PROJECTION_MAX_RETRY_DELAY");
    }

    @Test
    void everyInvalidValueIsReportedWithItsKeyAndValue() {
        Map<String, String> values = Map.of("projection.batch-size", "0", "projection.workers", "many",
                "projection.lease-time", "-1s", "projection.sweep-interval", "soon", "projection.enabled", "yes",
                "projection.schema", "drop");
        assertThatThrownBy(() -> Settings.from(values::get))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.batch-size must be >= 1, was 0")
                .hasMessageContaining("projection.workers must be a whole number >= 1, was \"many\"")
                .hasMessageContaining("projection.lease-time must be a positive duration, was \"-1s\"")
                .hasMessageContaining("projection.sweep-interval must be a duration such as 500ms, 30s, 5m or 1h, was \"soon\"")
                .hasMessageContaining("projection.enabled must be true or false, was \"yes\"")
                .hasMessageContaining("projection.schema must be update or validate, was \"drop\"");
    }

    @Test
    void aWebNodeIsSetByItsKeyOrEnvironmentAndTheWakeUpLooksAreOffAtZeroAndAtLeastTenMillisecondsApart() {
        assertThat(Settings.from(Map.of("projection.processing", "false")::get).processing()).isFalse();
        assertThat(Settings.from(Map.of("projection.wake-up-interval", "0")::get).wakeUpInterval()).isZero();
        assertThat(Settings.from(Map.<String, String>of()::get).listenDatasource()).as("no listening by default").isNull();
        assertThat(Settings.from(Map.of("projection.listen-datasource", "java:jboss/datasources/Listen")::get)
                .listenDatasource()).isEqualTo("java:jboss/datasources/Listen");
        assertThat(Settings.from(Map.of("projection.wake-up-interval", "10ms")::get).wakeUpInterval())
                .isEqualTo(Duration.ofMillis(10));
        assertThatThrownBy(() -> Settings.from(Map.of("projection.wake-up-interval", "5ms")::get))
                .hasMessageContaining("projection.wake-up-interval must be 0 (off) or at least 10ms");
        assertThatThrownBy(() -> Settings.from(Map.of("projection.processing", "web")::get))
                .hasMessageContaining("projection.processing");
        assertThat(Settings.environmentName(Settings.PROCESSING)).isEqualTo("PROJECTION_PROCESSING");
    }

    @Test
    void theBatchLingerIsZeroToASecondZeroTurningItOff() {
        assertThat(Settings.defaults().batchLinger()).isEqualTo(java.time.Duration.ofMillis(20));
        assertThat(Settings.from(Map.of("projection.batch-linger", "0")::get).batchLinger()).isZero();
        assertThat(Settings.from(Map.of("projection.batch-linger", "5ms")::get).batchLinger())
                .isEqualTo(java.time.Duration.ofMillis(5));
        assertThatThrownBy(() -> Settings.from(Map.of("projection.batch-linger", "2s")::get))
                .hasMessageContaining("projection.batch-linger must be a duration from 0 to 1s, was \"2s\"");
        assertThatThrownBy(() -> Settings.from(Map.of("projection.batch-linger", "soon")::get))
                .hasMessageContaining("projection.batch-linger must be a duration such as 0, 5ms or 20ms, was \"soon\"");
    }

    @Test
    void aZeroDurationIsRefused() {
        assertThatThrownBy(() -> Settings.from(Map.of("projection.retry-delay", "0s")::get))
                .hasMessageContaining("projection.retry-delay must be a positive duration, was \"0s\"");
    }

    @Test
    void aRetryDelayOverItsCapIsRefused() {
        assertThatThrownBy(() -> Settings.from(Map.of("projection.retry-delay", "10m")::get))
                .hasMessageContaining("projection.retry-delay (10m) must not exceed projection.max-retry-delay (5m)");
    }

    @Test
    void aLeaseTooShortForARefreshTimeoutIsRefusedNamingTheMinimum() {
        assertThatThrownBy(() -> Settings.from(Map.of("projection.lease-time", "1500ms")::get))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.lease-time must be at least 2s")
                .hasMessageContaining("was 1500ms");
        assertThat(Settings.from(Map.of("projection.lease-time", "2s")::get).leaseTime()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void theAuditIsKeptNinetyDaysEndedRebuildRunsThirtyAndEachAtLeastADayNamingTheKey() {
        assertThat(Settings.defaults().retention())
                .isEqualTo(new Settings.Retention(Duration.ofDays(90), Duration.ofDays(30)));
        assertThatThrownBy(() -> Settings.from(Map.of("projection.audit-retention", "12h",
                "projection.rebuild-retention", "0s")::get))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.audit-retention must be at least 1d, was 12h")
                .hasMessageContaining("projection.rebuild-retention");
        assertThat(Settings.from(Map.of("projection.audit-retention", "365d")::get).retention().audit())
                .isEqualTo(Duration.ofDays(365));
    }

    @Test
    void trendsAreKeptTwoDaysAndAtLeastTheHourTheConsoleDraws() {
        assertThat(Settings.defaults().trendRetention()).isEqualTo(Duration.ofHours(48));
        assertThatThrownBy(() -> Settings.from(Map.of("projection.trend-retention", "30m")::get))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.trend-retention must be at least 1h")
                .hasMessageContaining("was 30m");
        assertThat(Settings.from(Map.of("projection.trend-retention", "7d")::get).trendRetention())
                .isEqualTo(Duration.ofDays(7));
    }

    @Test
    void workersAreBoundedNamingTheLimit() {
        assertThatThrownBy(() -> Settings.from(Map.of("projection.workers", "257")::get))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.workers must be at most 256")
                .hasMessageContaining("was 257");
        assertThat(Settings.from(Map.of("projection.workers", "256")::get).workers()).isEqualTo(256);
    }

    @Test
    void durationsAcceptUnitsAndIso8601() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("PT45S")).isEqualTo(Duration.ofSeconds(45));
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Durations.format(Duration.ofMinutes(5))).isEqualTo("5m");
        assertThat(Durations.format(Duration.ofDays(90))).isEqualTo("90d");
        assertThat(Durations.format(Duration.ofHours(36))).isEqualTo("36h");
    }

    @Test
    void theTransactionManagersJndiNameIsUnsetByDefaultSoTheServersKnownNamesAreTriedAndTakenAsGivenWhenSet() {
        assertThat(Settings.defaults().transactionManager()).isNull();
        assertThat(Settings.from(Map.of("projection.transaction-manager", "java:comp/TransactionManager")::get)
                .transactionManager()).isEqualTo("java:comp/TransactionManager");
    }

    @Test
    void theDatasourceIsUnsetByDefaultSoTheEngineCanTakeTheProjectedUnitsOneAndTakenAsGivenWhenSet() {
        assertThat(Settings.defaults().datasource()).isNull();
        assertThat(Settings.from(Map.of("projection.datasource", " ")::get).datasource()).isNull();
        assertThat(Settings.from(Map.of("projection.datasource", "java:jboss/datasources/OrdersDS")::get)
                .datasource()).isEqualTo("java:jboss/datasources/OrdersDS");
    }

    @Test
    void theTablesAreInTheConnectionsDefaultSchemaWithLiquibasesDefaultTableNamesUnlessSet() {
        Settings settings = Settings.defaults();
        assertThat(settings.tableSchema()).as("the connection's default schema").isNull();
        assertThat(settings.changelogTable()).isEqualTo("DATABASECHANGELOG");
        assertThat(settings.changelogLockTable()).isEqualTo("DATABASECHANGELOGLOCK");

        Settings own = Settings.from(Map.of("projection.table-schema", "projections_own",
                "projection.liquibase.changelog-table", "projection_changelog",
                "projection.liquibase.lock-table", "projection_changelog_lock")::get);
        assertThat(own.tableSchema()).isEqualTo("projections_own");
        assertThat(own.changelogTable()).isEqualTo("projection_changelog");
        assertThat(own.changelogLockTable()).isEqualTo("projection_changelog_lock");
        assertThat(own.schema()).as("projection.schema stays the update/validate mode")
                .isEqualTo(Settings.SchemaMode.UPDATE);
    }

    @Test
    void theTableSchemaAndLiquibasesTableNamesTakeEnvironmentVariablesLikeEveryKey() {
        Settings settings = Settings.from(SettingSource.standard(new Properties(), Map.of("PROJECTION_TABLE_SCHEMA", "ops",
                "PROJECTION_LIQUIBASE_CHANGELOG_TABLE", "OPS_CHANGELOG"), new Properties())::value);
        assertThat(settings.tableSchema()).isEqualTo("ops");
        assertThat(settings.changelogTable()).isEqualTo("OPS_CHANGELOG");
    }

    @Test
    void aSchemaOrTableNameThatIsNoPlainIdentifierFailsNamingKeyAndValue() {
        Map<String, String> values = Map.of("projection.table-schema", "own; DROP TABLE x",
                "projection.liquibase.changelog-table", "my-changelog",
                "projection.liquibase.lock-table", "x".repeat(64));
        assertThatThrownBy(() -> Settings.from(values::get))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("projection.table-schema must be a lower-case SQL identifier ([a-z_][a-z0-9_]*, "
                        + "at most 63 characters) naming an existing schema, was \"own; DROP TABLE x\"")
                .hasMessageContaining("projection.liquibase.changelog-table must be an SQL identifier "
                        + "([A-Za-z_][A-Za-z0-9_]*, at most 63 characters), was \"my-changelog\"")
                .hasMessageContaining("projection.liquibase.lock-table must be an SQL identifier");
        assertThatThrownBy(() -> Settings.from(Map.of("projection.table-schema", "Projections")::get))
                .as("upper case: PostgreSQL would fold it, MariaDB might not")
                .hasMessageContaining("projection.table-schema must be a lower-case SQL identifier")
                .hasMessageContaining("was \"Projections\"");
        assertThatThrownBy(() -> Settings.from(Map.of("projection.table-schema", "public.x")::get))
                .hasMessageContaining("was \"public.x\"");
    }

    @Test
    void liquibasesTwoTablesMustDifferAndMustNotTakeTheNameOfOneOfTheProductsTables() {
        assertThatThrownBy(() -> Settings.from(Map.of("projection.liquibase.changelog-table", "changes",
                "projection.liquibase.lock-table", "CHANGES")::get))
                .hasMessageContaining("projection.liquibase.changelog-table and projection.liquibase.lock-table must "
                        + "name two tables, both were \"changes\"");
        assertThatThrownBy(() -> Settings.from(Map.of("projection.liquibase.lock-table", "PROJECTION_PENDING")::get))
                .hasMessageContaining("projection.liquibase.lock-table must not name one of the product's own tables, "
                        + "was \"PROJECTION_PENDING\"");
    }
}
