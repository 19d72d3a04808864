package dev.projections.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every setting the engine reads, documented where it is defined: its key, its default as an operator reads it,
 * whether a projection may set its own ({@code projection.<name>.<key>}), what it does, and since which release. The
 * configuration reference of the guide (docs/guide/configuration.md) is generated from it
 * ({@link #markdownTable()}), and a test fails the build when a key of {@link Settings} has no entry here, an entry
 * has no description, or the guide's table differs from what this generates.
 */
public final class SettingsReference {

    /** The release that brought the settings documented without one: the first. */
    static final String FIRST_RELEASE = "0.1.0";

    /**
     * One setting.
     *
     * @param defaultValue as the reference shows it (Markdown)
     * @param description  what it does (Markdown; links are relative to docs/guide/)
     */
    public record Key(String key, String defaultValue, boolean perProjection, String description, String since) {

        Key(String key, String defaultValue, boolean perProjection, String description) {
            this(key, defaultValue, perProjection, description, FIRST_RELEASE);
        }

        /** The environment variable that sets it ({@code PROJECTION_BATCH_SIZE}). */
        public String environmentVariable() {
            return Settings.environmentName(key);
        }
    }

    /** In the order the reference lists them. */
    public static final List<Key> KEYS = List.of(
            new Key("projection.enabled", "`true`", false,
                    "write marks and process them"),
            new Key("projection.auto-refresh", "`true`", false,
                    "after-commit hand-off and sweep (off: tests drive the engine step by step)"),
            new Key("projection.wake-up-interval", "`100ms`", false,
                    "how often an idle processing instance looks for due marks while a live web node deploys one of "
                    + "its projections; `0` or 10 ms to 1 min (see [Scaling out](scaling.md#scaling-out))"),
            new Key("projection.listen-datasource", "unset (the provisioned server and `wildfly.cli` set it)", false,
                    "JNDI name of a datasource **without JTA** on the engine's PostgreSQL database: each instance "
                    + "holds one connection of it to hear other instances' commits and refreshes at once "
                    + "(`LISTEN/NOTIFY`); a name that finds nothing fails the deployment; ignored on MariaDB and H2 "
                    + "(see [Scaling out](scaling.md#scaling-out))"),
            new Key("projection.processing", "`true`", false,
                    "`false` makes this instance a **web node**: it writes marks and answers the console, the API, "
                    + "health and read-your-writes waits, but claims, refreshes, steps rebuilds and probes nothing; "
                    + "the instances with `true` do (see [Scaling out](scaling.md#scaling-out))"),
            new Key("projection.schema", "`update`", false,
                    "`update`: run the Liquibase changelog at deployment; `validate`: check tables, columns and "
                    + "indexes (JDBC metadata, no writes) and fail the deployment printing the DDL"),
            new Key("projection.datasource", "unset: the `jta-data-source` of the persistence units with `@Projected` entities, else `java:jboss/datasources/ProjectionDS`", false,
                    "JNDI name of the datasource holding the product's tables (on Payara a `jdbc/…` name: no `:` "
                    + "there); unset, all units with `@Projected` entities must share one datasource, otherwise the "
                    + "deployment fails naming each unit and its datasource"),
            new Key("projection.table-schema", "unset: the connection's default schema", false,
                    "schema of the product's tables (MariaDB/MySQL: database); must exist and be a lower-case "
                    + "identifier (`[a-z_][a-z0-9_]*`, ≤ 63). Every statement of the product, the marks at commit and "
                    + "the Liquibase migration address the tables there; no session state (`search_path`, `USE`) is "
                    + "changed on any connection"),
            new Key("projection.liquibase.changelog-table", "`DATABASECHANGELOG`", false,
                    "name of Liquibase's changelog table for the product's changelog (kept beside the product's "
                    + "tables), for an application that runs its own Liquibase on the same database"),
            new Key("projection.liquibase.lock-table", "`DATABASECHANGELOGLOCK`", false,
                    "name of Liquibase's lock table for the product's changelog; must differ from the changelog "
                    + "table"),
            new Key("projection.transaction-manager", "unset: `java:jboss/TransactionManager`, `java:appserver/TransactionManager`, `java:/TransactionManager` are tried", false,
                    "JNDI name of the server's JTA `TransactionManager` (WildFly and Payara need nothing; GlassFish "
                    + "binds it at `java:appserver/TransactionManager`, found by default; Open Liberty binds none in "
                    + "JNDI and is not supported yet); a name the server does not bind fails the deployment naming key "
                    + "and value"),
            new Key("projection.sweep-interval", "`30s`", false,
                    "sweep period"),
            new Key("projection.batch-size", "`100`", true,
                    "marks per claim (and per `refreshAll`): one claim is one projection's"),
            new Key("projection.rebuild-page-size", "`5000`", true,
                    "ids a rebuild step takes from `ids(after, limit)` and marks with one upsert"),
            new Key("projection.verify-per-minute", "`0` (off)", true,
                    "keys a minute the sweep checks for drift with the projection's `Verifiable.drifted`, re-marking "
                    + "what differs: a rolling walk of `ids()`, one instance at a time, every key within keys ÷ rate "
                    + "minutes (docs/design.md D58); a projection's own key on one that is not `Verifiable` fails the "
                    + "deployment"),
            new Key("projection.workers", "`4`", true,
                    "concurrent drainers per instance, each on a thread of its own (at most 256). Per projection: "
                    + "how many of them may work on that projection at once, `1` to `projection.workers`; unset, all "
                    + "but one when two or more projections are deployed (all of them for the only one, or while the "
                    + "others are paused or suspended), so a projection whose refreshes are slow always leaves a "
                    + "drainer to the others"),
            new Key("projection.batch-linger", "`20ms`", false,
                    "under a stream of commits (each within a quarter of this after the one before), how long a "
                    + "committed key waits at most for others to share its claim and refresh; a commit after a quiet "
                    + "spell is refreshed at once; `0` to `1s`, `0`: no waiting (docs/design.md D41)"),
            new Key("projection.retry-delay", "`5s`", true,
                    "first retry delay, doubles per failure"),
            new Key("projection.max-retry-delay", "`5m`", true,
                    "cap of the retry delay"),
            new Key("projection.lease-time", "`2m`", true,
                    "claim lease; a refresh transaction times out after half of it; at least `2s` (a refresh's "
                    + "timeout, at least 1 s, must fit in half the lease)"),
            new Key("projection.max-attempts", "never", true,
                    "a mark that has failed this many times is **parked**: kept with its error, never retried until "
                    + "an operator resumes or skips it (the demo sets 8)"),
            new Key("projection.suspend-after-failing-keys", "`10`", true,
                    "a projection whose refreshes fail for this many different keys within a minute (and for "
                    + "`suspend-failure-percent`, default 50, of them) is **suspended** on every instance, its keys "
                    + "keeping their attempts, until a probe refresh succeeds; `0`: never"),
            new Key("projection.suspend-failure-percent", "`50`", true,
                    "the share of a projection's refreshes within that minute that must have failed, `1` to `100`, "
                    + "before it is suspended"),
            new Key("projection.probe-interval", "`30s`", false,
                    "one probe refresh of a suspended projection per interval, across the instances"),
            new Key("projection.freshness-objective", "none", true,
                    "the lag (first mark → refresh commit) a projection's refreshes should stay within, e.g. `2s`: "
                    + "`projection.lag` gets a bucket ending exactly there, for an alert or an SLO on the share of "
                    + "refreshes within it (a projection cannot switch off a global objective: leave the global key "
                    + "unset and set it per projection)"),
            new Key("projection.one-transaction", "the database's: on for PostgreSQL, off for MariaDB", true,
                    "a committed key alone in its drainer's turn, and a rebuild's batch, is claimed, refreshed and "
                    + "acked in one transaction: one commit less before the read model is current, and a rebuild "
                    + "with one write per mark fewer. Only for projections whose "
                    + "refreshes take at most 50 ms (measured; for a batch, the whole batch), not when refreshes are "
                    + "traced, never on H2. A business commit of such a key meanwhile waits for the refresh's commit; "
                    + "on MariaDB turn it on only for projections whose refresh takes no lock a business transaction "
                    + "may hold (docs/contract.md §4, steps 7 and 8; docs/pitfalls.md #96)"),
            new Key("projection.synchronous-commit", "the database's (`synchronous_commit` as PostgreSQL has it)", true,
                    "PostgreSQL's `synchronous_commit` for the transactions that refresh a projection's read model and "
                    + "end its marks: `on`, `off`, `local`, `remote_write` or `remote_apply`. With `off` such a commit "
                    + "does not wait for the disk, and a commit's read model arrives that much sooner; a database "
                    + "crash may then lose the last refreshes (a fraction of a second of them), and with each its "
                    + "mark's end, so the marks come back and are refreshed again: nothing is lost, but a read model "
                    + "may briefly be older than a read of it before the crash showed ([Performance](performance.md"
                    + "#commits-that-do-not-wait-for-the-disk)). Never for a refresh that writes anything else that "
                    + "must survive a crash. PostgreSQL only: set on another database it fails the deployment"),
            new Key("projection.await-max-waiters", "`32`", false,
                    "threads of this instance that may wait for the refresh of their own commits at once ([Read your "
                    + "writes](using.md#read-your-writes)); one more is answered \"not waited\" at once; `0` turns waits "
                    + "off"),
            new Key("projection.await-max-timeout", "`30s`", false,
                    "the longest read-your-writes wait, whatever a call asks for"),
            new Key("projection.test-support", "`false`", false,
                    "serve `POST /projections/test/idle` and `/projections/test/refresh` without a login, for an "
                    + "application's tests ([Testing your application](using.md#testing-your-application)); never in "
                    + "production"),
            new Key("projection.console.trusted-proxies", "none", false,
                    "reverse proxies in front of the console (IP addresses and CIDR ranges, comma-separated) whose "
                    + "`X-Forwarded-For` names the client a login is counted against; a header from any other address "
                    + "is ignored"),
            new Key("projection.await-poll-interval", "`500ms`", false,
                    "how often a waiting thread checks the queue for keys refreshed by another instance (after "
                    + "quicker checks at 50, 100, 200 and 400 ms); a refresh on this instance wakes it at once"),
            new Key("projection.trend-retention", "`48h`", false,
                    "how long the console's trends (`projection_trend`, a row per projection, minute and instance) "
                    + "and the reports of instances no longer seen (`projection_node`) are kept; at least `1h`"),
            new Key("projection.audit-retention", "`90d`", false,
                    "how long operators' actions stay in `projection_audit`; pruned by the sweep in batches; at "
                    + "least `1d`"),
            new Key("projection.rebuild-retention", "`30d`", false,
                    "how long ended rebuild runs (and their partitions) stay in `projection_rebuild`; the latest run "
                    + "of each projection and tenant is always kept; at least `1d`"),
            new Key("projection.non-retryable", "none", true,
                    "comma-separated exception classes (subclasses too, anywhere in the causes) that park a mark at "
                    + "once, like `NonRetryableRefreshException` (the demo lists "
                    + "`org.hibernate.exception.DataException`)"),
            new Key("projection.back-pressure", "none", true,
                    "comma-separated exception classes that mean \"no pooled connection or thread in time\", besides "
                    + "those recognised already (`SQLTransientConnectionException`, WildFly's `IJ000655` and "
                    + "`WFLYEJB0378`, Payara's exhausted pool): the mark is given back untried, no attempt counted, no "
                    + "suspension"));

    private SettingsReference() {
    }

    public static Optional<Key> find(String key) {
        return KEYS.stream().filter(k -> k.key().equals(key)).findFirst();
    }

    /** The reference's table, as docs/guide/configuration.md holds it between its generated-table markers. */
    public static String markdownTable() {
        List<String> lines = new ArrayList<>();
        lines.add("| key | default | per projection | environment variable | meaning | since |");
        lines.add("|---|---|---|---|---|---|");
        for (Key key : KEYS) {
            lines.add("| `" + key.key() + "` | " + key.defaultValue() + " | " + (key.perProjection() ? "yes" : "–")
                    + " | `" + key.environmentVariable() + "` | " + key.description() + " | " + key.since() + " |");
        }
        return String.join("\n", lines) + "\n";
    }
}
