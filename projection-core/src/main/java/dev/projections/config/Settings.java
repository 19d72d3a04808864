package dev.projections.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The settings of docs/contract.md §10. Each key is read from a system property ({@code projection.batch-size}),
 * then the environment ({@code PROJECTION_BATCH_SIZE}), then the deployment's {@code META-INF/projection.properties},
 * then the default: MicroProfile Config's order, so an operator overrides a packaged value at start without
 * repackaging. Invalid values are collected and
 * reported together, each naming key and value.
 */
public record Settings(
        boolean enabled,
        boolean autoRefresh,
        boolean processing,
        Duration wakeUpInterval,
        SchemaMode schema,
        String datasource,
        String listenDatasource,
        Duration sweepInterval,
        int batchSize,
        int workers,
        Duration batchLinger,
        Duration retryDelay,
        Duration maxRetryDelay,
        Duration leaseTime,
        int rebuildPageSize,
        int verifyPerMinute,
        int maxAttempts,
        List<String> nonRetryable,
        List<String> backPressure,
        int suspendAfterFailingKeys,
        int suspendFailurePercent,
        Duration probeInterval,
        Duration trendRetention,
        String transactionManager,
        String tableSchema,
        String changelogTable,
        String changelogLockTable,
        Duration freshnessObjective,
        Boolean oneTransaction,
        String synchronousCommit,
        Awaits awaits,
        Retention retention,
        boolean testSupport,
        TrustedProxies trustedProxies,
        Map<String, ProjectionSettings> projections) {

    /**
     * The bounds of read-your-writes waits (docs/contract.md §14): at most {@code maxWaiters} threads wait at once (one
     * more is answered "not waited" at once), no wait lasts longer than {@code maxTimeout} whatever it asked for, and a
     * waiter whose keys were refreshed elsewhere learns it from the database within {@code pollInterval}.
     */
    public record Awaits(int maxWaiters, Duration maxTimeout, Duration pollInterval) {
    }

    /**
     * How long the history tables keep what they record (docs/contract.md §12, retention): {@code audit}, the rows of
     * {@code projection_audit}; {@code rebuildRuns}, the runs that ended (with their partitions), though the latest run
     * of each projection and tenant is always kept.
     */
    public record Retention(Duration audit, Duration rebuildRuns) {
    }

    public enum SchemaMode { UPDATE, VALIDATE }

    public static final String ENABLED = "projection.enabled";
    public static final String AUTO_REFRESH = "projection.auto-refresh";
    /**
     * Whether this instance claims and refreshes marks: {@code false} makes it a web node, which writes marks and
     * answers the console, the API, health and read-your-writes waits, while the instances with {@code true} (the
     * default) refresh, step rebuilds and probe (docs/design.md D54).
     */
    public static final String PROCESSING = "projection.processing";
    /**
     * How often an idle processing instance looks for due marks while a live web node deploys one of its projections
     * (a web node's commits are handed to nobody); {@code 0}: only at the sweep (docs/design.md D54).
     */
    public static final String WAKE_UP_INTERVAL = "projection.wake-up-interval";
    /** The shortest {@value #WAKE_UP_INTERVAL} but 0: each look is a query on the queue. */
    public static final Duration MIN_WAKE_UP_INTERVAL = Duration.ofMillis(10);
    /** The longest {@value #WAKE_UP_INTERVAL}: past it, the sweep serves as well. */
    public static final Duration MAX_WAKE_UP_INTERVAL = Duration.ofMinutes(1);
    public static final String SCHEMA = "projection.schema";
    /**
     * The JNDI name of the engine's datasource; unset ({@link #datasource()} {@code null}), the engine takes the
     * datasource of the persistence units with {@code @Projected} entities, else {@link #DEFAULT_DATASOURCE}
     * (docs/design.md D35).
     */
    public static final String DATASOURCE = "projection.datasource";
    /**
     * The JNDI name of a datasource without JTA on the engine's PostgreSQL database, from which an instance takes one
     * connection of its own to hear other instances' commits and refreshes at once, and whose presence makes it signal
     * its own (docs/design.md D55); unset, it neither signals nor hears, and looks for other instances' marks every
     * {@value #WAKE_UP_INTERVAL}.
     */
    public static final String LISTEN_DATASOURCE = "projection.listen-datasource";
    /**
     * The JNDI name of the server's JTA {@code TransactionManager}; unset, the names WildFly and Payara/GlassFish bind
     * it under are tried ({@code java:jboss/TransactionManager}, {@code java:appserver/TransactionManager},
     * {@code java:/TransactionManager}).
     */
    public static final String TRANSACTION_MANAGER = "projection.transaction-manager";
    public static final String SWEEP_INTERVAL = "projection.sweep-interval";
    public static final String BATCH_SIZE = "projection.batch-size";
    public static final String WORKERS = "projection.workers";
    static final int MAX_WORKERS = 256;
    /**
     * How long a key committed in a burst (within a quarter of this time of the one before) waits for companions to
     * share its claim and refresh with, at most; {@code 0} refreshes every key as soon as a drainer is free
     * (docs/design.md D41).
     */
    public static final String BATCH_LINGER = "projection.batch-linger";
    /** The longest {@value #BATCH_LINGER}: past it, waiting for companions costs more freshness than it saves. */
    public static final Duration MAX_BATCH_LINGER = Duration.ofSeconds(1);
    public static final String RETRY_DELAY = "projection.retry-delay";
    public static final String MAX_RETRY_DELAY = "projection.max-retry-delay";
    public static final String LEASE_TIME = "projection.lease-time";
    public static final String REBUILD_PAGE_SIZE = "projection.rebuild-page-size";
    /** Keys a minute the sweep checks for drift (docs/design.md D58); 0, the default, samples none. */
    public static final String VERIFY_PER_MINUTE = "projection.verify-per-minute";
    public static final String MAX_ATTEMPTS = "projection.max-attempts";
    public static final String NON_RETRYABLE = "projection.non-retryable";
    public static final String BACK_PRESSURE = "projection.back-pressure";
    public static final String SUSPEND_AFTER_FAILING_KEYS = "projection.suspend-after-failing-keys";
    public static final String SUSPEND_FAILURE_PERCENT = "projection.suspend-failure-percent";
    public static final String PROBE_INTERVAL = "projection.probe-interval";
    public static final String TREND_RETENTION = "projection.trend-retention";
    /** How long operators' actions stay in {@code projection_audit}. */
    public static final String AUDIT_RETENTION = "projection.audit-retention";
    /** How long ended rebuild runs stay in {@code projection_rebuild}; the latest of each projection and tenant stays. */
    public static final String REBUILD_RETENTION = "projection.rebuild-retention";
    /**
     * How fresh a projection's read model should be: the lag (first mark → refresh commit) its refreshes should stay
     * within; a bucket of {@code projection.lag} at exactly this value lets an alert count those that did not. Unset:
     * none. Per projection too.
     */
    public static final String FRESHNESS_OBJECTIVE = "projection.freshness-objective";
    /**
     * Whether a lone committed key may be claimed, refreshed and acked in one transaction (docs/design.md D53); unset,
     * the database's default (on for PostgreSQL, off for MariaDB; H2 never). Per projection too.
     */
    public static final String ONE_TRANSACTION = "projection.one-transaction";
    /**
     * PostgreSQL's {@code synchronous_commit} for the transactions that refresh a projection's read model and end its
     * marks (docs/design.md D63); unset, the database's own. Per projection too.
     */
    public static final String SYNCHRONOUS_COMMIT = "projection.synchronous-commit";
    /** The values of {@link #SYNCHRONOUS_COMMIT}: PostgreSQL's own for {@code synchronous_commit}. */
    public static final List<String> SYNCHRONOUS_COMMITS = List.of("on", "off", "local", "remote_write", "remote_apply");
    /* hyphenated, not projection.await.x: that form is projection "await"'s own setting (§10) */
    public static final String AWAIT_MAX_WAITERS = "projection.await-max-waiters";
    public static final String AWAIT_MAX_TIMEOUT = "projection.await-max-timeout";
    public static final String AWAIT_POLL_INTERVAL = "projection.await-poll-interval";
    /** Serves {@code /projections/test/idle} and {@code /projections/test/refresh}, without a login: tests only. */
    public static final String TEST_SUPPORT = "projection.test-support";
    /**
     * The reverse proxies in front of the console whose {@code X-Forwarded-For} names the client its login throttle
     * counts (addresses and CIDR ranges, comma-separated); none by default.
     */
    public static final String TRUSTED_PROXIES = "projection.console.trusted-proxies";
    /**
     * The schema (on MariaDB/MySQL: the database) of the product's tables; unset, the connection's default schema.
     * Not {@value #SCHEMA}, which is the update/validate mode.
     */
    public static final String TABLE_SCHEMA = "projection.table-schema";
    /** The name of Liquibase's changelog table for the product's changelog (beside the product's tables). */
    public static final String CHANGELOG_TABLE = "projection.liquibase.changelog-table";
    /** The name of Liquibase's lock table for the product's changelog (beside the product's tables). */
    public static final String CHANGELOG_LOCK_TABLE = "projection.liquibase.lock-table";
    public static final String DEFAULT_CHANGELOG_TABLE = "DATABASECHANGELOG";
    public static final String DEFAULT_CHANGELOG_LOCK_TABLE = "DATABASECHANGELOGLOCK";

    /*
     * A schema is written into the engine's SQL unquoted, so it must be an identifier every database reads the same
     * way: lower case (PostgreSQL folds unquoted names to lower case, MariaDB's database names may be case-sensitive),
     * at most 63 characters (PostgreSQL's limit). Liquibase's table names are Liquibase's to quote and fold, as its
     * defaults (upper case) are.
     */
    private static final Pattern LOWER_CASE_IDENTIFIER =
            Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /** The shortest {@value #AUDIT_RETENTION} and {@value #REBUILD_RETENTION}: a day. */
    public static final Duration MIN_HISTORY_RETENTION = Duration.ofDays(1);

    /** The shortest {@value #TREND_RETENTION}: the console draws the last hour. */
    public static final Duration MIN_TREND_RETENTION = Duration.ofHours(1);

    /** The most keys a minute a sample may check: a sweep's turn checks at most a rebuild page of them. */
    public static final int MAX_VERIFY_PER_MINUTE = 1_000_000;

    /** {@value #SUSPEND_AFTER_FAILING_KEYS} that turns automatic suspension off. */
    public static final int NEVER_SUSPEND = 0;

    /** {@value #MAX_ATTEMPTS} when not set: a failing mark is never parked for its number of attempts. */
    public static final int NEVER_PARK = 0;

    /**
     * The shortest lease: a refresh transaction times out after half the lease, and JTA counts whole seconds, so
     * a refresh takes at least 1 s; under 2 s that second would not fit inside the lease less its margin (a tenth
     * of it), and a lease could lapse while its refresh still runs.
     */
    public static final Duration MIN_LEASE_TIME = Duration.ofSeconds(2);

    /**
     * The datasource of the product's tables when {@value #DATASOURCE} is not set and no persistence unit with
     * {@code @Projected} entities has started before the engine.
     */
    public static final String DEFAULT_DATASOURCE = "java:jboss/datasources/ProjectionDS";

    public static Settings defaults() {
        return from(key -> null);
    }

    /** Settings from system properties, then the environment, then {@code deployment}, then defaults. */
    public static Settings load(Properties deployment) {
        return load(SettingSource.standard(System.getProperties(), System.getenv(), deployment));
    }

    /** The global settings from {@code source}; {@link ProjectionSettings#resolve} adds each projection's. */
    public static Settings load(SettingSource source) {
        return from(source::value);
    }

    /** {@code projection.batch-size} → {@code PROJECTION_BATCH_SIZE}. */
    public static String environmentName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    static Settings from(Function<String, String> values) {
        ValueParser p = new ValueParser(values);
        Settings settings = new Settings(
                p.bool(ENABLED, true),
                p.bool(AUTO_REFRESH, true),
                p.bool(PROCESSING, true),
                p.durationOrZero(WAKE_UP_INTERVAL, Duration.ofMillis(100), MAX_WAKE_UP_INTERVAL),
                p.schema(SCHEMA, SchemaMode.UPDATE),
                p.text(DATASOURCE, null),
                p.text(LISTEN_DATASOURCE, null),
                p.duration(SWEEP_INTERVAL, Duration.ofSeconds(30)),
                p.atLeastOne(BATCH_SIZE, 100),
                p.atLeastOne(WORKERS, 4),
                p.durationOrZero(BATCH_LINGER, Duration.ofMillis(20), MAX_BATCH_LINGER),
                p.duration(RETRY_DELAY, Duration.ofSeconds(5)),
                p.duration(MAX_RETRY_DELAY, Duration.ofMinutes(5)),
                p.duration(LEASE_TIME, Duration.ofMinutes(2)),
                p.atLeastOne(REBUILD_PAGE_SIZE, 5000),
                p.whole(VERIFY_PER_MINUTE, 0, 0, MAX_VERIFY_PER_MINUTE),
                p.atLeastOne(MAX_ATTEMPTS, NEVER_PARK),
                p.classNames(NON_RETRYABLE),
                p.classNames(BACK_PRESSURE),
                p.whole(SUSPEND_AFTER_FAILING_KEYS, 10, NEVER_SUSPEND, 1_000_000),
                p.whole(SUSPEND_FAILURE_PERCENT, 50, 1, 100),
                p.duration(PROBE_INTERVAL, Duration.ofSeconds(30)),
                p.duration(TREND_RETENTION, Duration.ofHours(48)),
                p.text(TRANSACTION_MANAGER, null),
                p.identifier(TABLE_SCHEMA, null, LOWER_CASE_IDENTIFIER,
                        "a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63 characters) naming an existing schema"),
                p.identifier(CHANGELOG_TABLE, DEFAULT_CHANGELOG_TABLE, IDENTIFIER,
                        "an SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)"),
                p.identifier(CHANGELOG_LOCK_TABLE, DEFAULT_CHANGELOG_LOCK_TABLE, IDENTIFIER,
                        "an SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)"),
                p.duration(FRESHNESS_OBJECTIVE, null),
                p.optionalBool(ONE_TRANSACTION, null),
                p.oneOf(SYNCHRONOUS_COMMIT, null, SYNCHRONOUS_COMMITS),
                new Awaits(p.whole(AWAIT_MAX_WAITERS, 32, 0, 10_000),
                        p.duration(AWAIT_MAX_TIMEOUT, Duration.ofSeconds(30)),
                        p.duration(AWAIT_POLL_INTERVAL, Duration.ofMillis(500))),
                new Retention(p.duration(AUDIT_RETENTION, Duration.ofDays(90)),
                        p.duration(REBUILD_RETENTION, Duration.ofDays(30))),
                p.bool(TEST_SUPPORT, false),
                p.trustedProxies(TRUSTED_PROXIES),
                Map.of());
        if (settings.changelogTable.equalsIgnoreCase(settings.changelogLockTable)) {
            p.errors.add(CHANGELOG_TABLE + " and " + CHANGELOG_LOCK_TABLE + " must name two tables, both were \""
                    + settings.changelogTable + "\"");
        }
        for (String key : List.of(CHANGELOG_TABLE, CHANGELOG_LOCK_TABLE)) {
            String table = key.equals(CHANGELOG_TABLE) ? settings.changelogTable : settings.changelogLockTable;
            if (dev.projections.store.TableSchema.TABLES.contains(table.toLowerCase(Locale.ROOT))) {
                p.errors.add(key + " must not name one of the product's own tables, was \"" + table + "\"");
            }
        }
        if (settings.retryDelay != null && settings.maxRetryDelay != null
                && settings.retryDelay.compareTo(settings.maxRetryDelay) > 0) {
            p.errors.add(RETRY_DELAY + " (" + Durations.format(settings.retryDelay) + ") must not exceed "
                    + MAX_RETRY_DELAY + " (" + Durations.format(settings.maxRetryDelay) + ")");
        }
        if (settings.wakeUpInterval != null && !settings.wakeUpInterval.isZero()
                && settings.wakeUpInterval.compareTo(MIN_WAKE_UP_INTERVAL) < 0) {
            p.errors.add(WAKE_UP_INTERVAL + " must be 0 (off) or at least " + Durations.format(MIN_WAKE_UP_INTERVAL)
                    + " (each look is a query on the queue), was " + Durations.format(settings.wakeUpInterval));
        }
        if (settings.workers > MAX_WORKERS) {
            p.errors.add(WORKERS + " must be at most " + MAX_WORKERS + " (each worker is a thread of its own and"
                    + " holds a connection while it refreshes), was " + settings.workers);
        }
        if (settings.leaseTime != null && settings.leaseTime.compareTo(MIN_LEASE_TIME) < 0) {
            p.errors.add(LEASE_TIME + " must be at least " + Durations.format(MIN_LEASE_TIME)
                    + " (a refresh's timeout, at least 1 s, must fit inside half the lease), was "
                    + Durations.format(settings.leaseTime));
        }
        if (settings.trendRetention != null && settings.trendRetention.compareTo(MIN_TREND_RETENTION) < 0) {
            p.errors.add(TREND_RETENTION + " must be at least " + Durations.format(MIN_TREND_RETENTION)
                    + " (the console draws the last hour of trends), was " + Durations.format(settings.trendRetention));
        }
        for (String key : List.of(AUDIT_RETENTION, REBUILD_RETENTION)) {
            Duration kept = key.equals(AUDIT_RETENTION) ? settings.retention.audit() : settings.retention.rebuildRuns();
            if (kept != null && kept.compareTo(MIN_HISTORY_RETENTION) < 0) {
                p.errors.add(key + " must be at least " + Durations.format(MIN_HISTORY_RETENTION) + ", was "
                        + Durations.format(kept));
            }
        }
        if (!p.errors.isEmpty()) {
            throw new InvalidSettingsException(p.errors);
        }
        return settings;
    }

    /**
     * The settings in force for {@code projection}: its own, when {@link ProjectionSettings#resolve} gave it some,
     * else the global ones (every value from its global key or default).
     */
    public ProjectionSettings of(String projection) {
        ProjectionSettings own = projections.get(projection);
        return own != null ? own : ProjectionSettings.global(projection, this);
    }

    /** The shortest lease of any projection (the global one when none sets its own): the clocks' tolerance. */
    public Duration shortestLeaseTime() {
        return projections.values().stream().map(ProjectionSettings::leaseTime).reduce(leaseTime,
                (a, b) -> a.compareTo(b) <= 0 ? a : b);
    }

    /** The longest lease of any projection (the global one when none sets its own). */
    public Duration longestLeaseTime() {
        return projections.values().stream().map(ProjectionSettings::leaseTime).reduce(leaseTime,
                (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }

    /** These settings with each projection's own, as {@link ProjectionSettings#resolve} found them. */
    public Settings withProjections(Map<String, ProjectionSettings> resolved) {
        return new Settings(enabled, autoRefresh, processing, wakeUpInterval, schema, datasource, listenDatasource, sweepInterval, batchSize, workers, batchLinger,
                retryDelay, maxRetryDelay, leaseTime, rebuildPageSize, verifyPerMinute, maxAttempts, nonRetryable, backPressure,
                suspendAfterFailingKeys, suspendFailurePercent, probeInterval, trendRetention, transactionManager,
                tableSchema, changelogTable, changelogLockTable, freshnessObjective, oneTransaction, synchronousCommit, awaits, retention, testSupport,
                trustedProxies, Map.copyOf(resolved));
    }
}
