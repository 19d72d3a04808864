package dev.projections.config;

import dev.projections.Projection;
import dev.projections.Verifiable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Collections;
import java.util.logging.Logger;

/**
 * The settings in force for one projection, and where each came from. For key {@code k} of projection {@code p} the
 * first of these wins: {@code projection.p.k} in the {@link SettingSource} (a system property, the environment's
 * {@code PROJECTION_P_K}, {@code META-INF/projection.properties}); the projection's own
 * {@link Projection#defaultSettings()}; the global {@code projection.k}; the default. The most specific value wins, so
 * a projection's code can set its own default under an operator's global value, and an operator's value for that
 * projection wins over both (docs/design.md D44).
 *
 * @param origins for each key of {@link #KEYS}, where its value came from: the property or variable that set it,
 *                {@code code (Class.defaultSettings())}, {@code projection.k (global)} or {@code default}
 */
public record ProjectionSettings(
        String projection,
        int batchSize,
        int workers,
        Duration leaseTime,
        Duration retryDelay,
        Duration maxRetryDelay,
        int maxAttempts,
        List<String> nonRetryable,
        List<String> backPressure,
        int suspendAfterFailingKeys,
        int suspendFailurePercent,
        int rebuildPageSize,
        int verifyPerMinute,
        Duration freshnessObjective,
        Boolean oneTransaction,
        String synchronousCommit,
        Map<String, String> origins) {

    public static final String BATCH_SIZE = "batch-size";
    public static final String WORKERS = "workers";
    public static final String LEASE_TIME = "lease-time";
    public static final String RETRY_DELAY = "retry-delay";
    public static final String MAX_RETRY_DELAY = "max-retry-delay";
    public static final String MAX_ATTEMPTS = "max-attempts";
    public static final String NON_RETRYABLE = "non-retryable";
    public static final String BACK_PRESSURE = "back-pressure";
    public static final String SUSPEND_AFTER_FAILING_KEYS = "suspend-after-failing-keys";
    public static final String SUSPEND_FAILURE_PERCENT = "suspend-failure-percent";
    public static final String REBUILD_PAGE_SIZE = "rebuild-page-size";
    public static final String VERIFY_PER_MINUTE = "verify-per-minute";
    public static final String FRESHNESS_OBJECTIVE = "freshness-objective";
    public static final String ONE_TRANSACTION = "one-transaction";
    public static final String SYNCHRONOUS_COMMIT = "synchronous-commit";

    /** The keys a projection may set for itself, in the order the console lists them. */
    public static final List<String> KEYS = List.of(BATCH_SIZE, WORKERS, LEASE_TIME, RETRY_DELAY, MAX_RETRY_DELAY, MAX_ATTEMPTS, NON_RETRYABLE,
            BACK_PRESSURE, SUSPEND_AFTER_FAILING_KEYS, SUSPEND_FAILURE_PERCENT, REBUILD_PAGE_SIZE, VERIFY_PER_MINUTE,
            FRESHNESS_OBJECTIVE, ONE_TRANSACTION, SYNCHRONOUS_COMMIT);

    public static final String DEFAULT_ORIGIN = "default";

    /** The origin {@link SettingSource#standard} gives a value of the deployment's {@code META-INF/projection.properties}. */
    public static final String PACKAGED_FILE = "META-INF/projection.properties";

    /**
     * Properties under {@code projection.} that are the server's, not the engine's (the demo server's datasource and
     * console users, Liquibase's table names): never read as a projection's.
     */
    private static final List<String> RESERVED = List.of("projection.db.", "projection.console.", "projection.liquibase.");

    private static final Logger LOG = Logger.getLogger(ProjectionSettings.class.getName());

    public ProjectionSettings {
        nonRetryable = List.copyOf(nonRetryable);
        backPressure = List.copyOf(backPressure);
        origins = Collections.unmodifiableMap(new LinkedHashMap<>(origins));
    }

    /** Whether a mark of this projection that has now failed {@code attempts} times is parked for it. */
    public boolean parksAfter(int attempts) {
        return maxAttempts != Settings.NEVER_PARK && attempts >= maxAttempts;
    }

    /** Each key of {@link #KEYS} with its value as an operator writes it, in that order. */
    public Map<String, String> values() {
        Map<String, String> values = new LinkedHashMap<>();
        values.put(BATCH_SIZE, Integer.toString(batchSize));
        values.put(WORKERS, Integer.toString(workers));
        values.put(LEASE_TIME, Durations.format(leaseTime));
        values.put(RETRY_DELAY, Durations.format(retryDelay));
        values.put(MAX_RETRY_DELAY, Durations.format(maxRetryDelay));
        values.put(MAX_ATTEMPTS, maxAttempts == Settings.NEVER_PARK ? "0 (never parked)" : Integer.toString(maxAttempts));
        values.put(NON_RETRYABLE, String.join(",", nonRetryable));
        values.put(BACK_PRESSURE, String.join(",", backPressure));
        values.put(SUSPEND_AFTER_FAILING_KEYS, suspendAfterFailingKeys == Settings.NEVER_SUSPEND
                ? "0 (never suspended)" : Integer.toString(suspendAfterFailingKeys));
        values.put(SUSPEND_FAILURE_PERCENT, Integer.toString(suspendFailurePercent));
        values.put(REBUILD_PAGE_SIZE, Integer.toString(rebuildPageSize));
        values.put(VERIFY_PER_MINUTE, verifyPerMinute == 0 ? "0 (no sampling)" : Integer.toString(verifyPerMinute));
        values.put(FRESHNESS_OBJECTIVE, freshnessObjective == null ? "none" : Durations.format(freshnessObjective));
        values.put(ONE_TRANSACTION, oneTransaction == null ? "the database's default" : oneTransaction.toString());
        values.put(SYNCHRONOUS_COMMIT, synchronousCommit == null ? "the database's" : synchronousCommit);
        return values;
    }

    private static final String DEFAULT_CAP_ORIGIN = "default (projection.workers less one: ";

    /**
     * Whether {@code workers} is the default cap of a deployment of several projections ({@link #defaultWorkers}: all
     * but one drainer), not a value someone set: a cap that yields to a projection alone with work (docs/design.md D45).
     */
    public boolean workersByDefault() {
        return origins.getOrDefault(WORKERS, "").startsWith(DEFAULT_CAP_ORIGIN);
    }

    /** {@code projection}'s settings when it has none of its own: every value global, its origin unknown. */
    static ProjectionSettings global(String projection, Settings global) {
        Map<String, String> origins = new LinkedHashMap<>();
        KEYS.forEach(key -> origins.put(key, "projection." + key + " (global)"));
        return new ProjectionSettings(projection, global.batchSize(), global.workers(), global.leaseTime(),
                global.retryDelay(), global.maxRetryDelay(), global.maxAttempts(),
                global.nonRetryable(), global.backPressure(), global.suspendAfterFailingKeys(),
                global.suspendFailurePercent(), global.rebuildPageSize(), global.verifyPerMinute(), global.freshnessObjective(), global.oneTransaction(),
                global.synchronousCommit(), origins);
    }

    /** {@code projection.order-search.max-attempts}. */
    public static String key(String projection, String key) {
        return "projection." + projection + "." + key;
    }

    /**
     * {@code global} with the settings of each of {@code projections} resolved from {@code source} and their
     * {@link Projection#defaultSettings()}. Throws {@link InvalidSettingsException} naming every problem at once: a
     * bad value (key and value), a key of the deployment's own files naming no deployed projection, a key of a
     * deployed projection that no projection may set, a code default under a key that is not a setting, projection
     * names whose environment variables would be another's. A key naming no deployed projection in a source the
     * server shares with other applications (a system property, the environment, a server config source) is logged
     * as a warning instead: it may be another application's.
     */
    public static Settings resolve(Settings global, SettingSource source, Collection<? extends Projection> projections) {
        List<String> problems = new ArrayList<>();
        Map<String, Projection> byName = new TreeMap<>();
        projections.forEach(projection -> byName.put(projection.name(), projection));
        problems.addAll(sharedVariables(byName.keySet()));
        problems.addAll(keysNamingNoProjection(source, byName.keySet()));
        Map<String, ProjectionSettings> resolved = new TreeMap<>();
        int defaultCap = defaultWorkers(global.workers(), byName.size());
        for (Projection projection : byName.values()) {
            resolved.put(projection.name(), resolveOne(global, defaultCap, source, projection, problems));
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return global.withProjections(resolved);
    }

    /**
     * How many of an instance's {@code workers} drainers one projection may hold at once when nothing sets it: all
     * but one when two or more projections are deployed, so one projection's backlog of slow refreshes always leaves
     * a drainer for the others (docs/design.md D45); all of them when it is the only one.
     */
    public static int defaultWorkers(int workers, int projections) {
        return projections >= 2 ? Math.max(1, workers - 1) : workers;
    }

    private static ProjectionSettings resolveOne(Settings global, int defaultCap, SettingSource source,
                                                 Projection projection, List<String> problems) {
        String name = projection.name();
        String code = codeName(projection) + ".defaultSettings()";
        Map<String, String> declared = projection.defaultSettings();
        for (String key : new TreeSet<>(declared.keySet())) {
            if (!KEYS.contains(key)) {
                problems.add(code + " of projection " + name + " declares \"" + key + "\", which is not a setting a "
                        + "projection can have; these are: " + String.join(", ", KEYS));
            }
        }
        // each key's value under a label that says where it came from, for the parser's messages
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> origins = new LinkedHashMap<>();
        for (String key : KEYS) {
            String full = key(name, key);
            SettingSource.Found found = source.find(full);
            String inCode = declared.get(key);
            if (found != null && !found.value().isBlank()) { // set but empty: as if unset, as for global keys
                labels.put(key, full);
                values.put(full, found.value());
                origins.put(key, found.origin());
            } else if (inCode != null && !inCode.isBlank()) {
                String label = key + " in " + code;
                labels.put(key, label);
                values.put(label, inCode);
                origins.put(key, "code (" + code + ")");
            } else {
                labels.put(key, full);
                SettingSource.Found globalValue = source.find("projection." + key);
                origins.put(key, globalValue == null || globalValue.value().isBlank() ? DEFAULT_ORIGIN
                        : globalValue.origin() + " (global)");
            }
        }
        if (!values.containsKey(labels.get(WORKERS)) && defaultCap != global.workers()) {
            origins.put(WORKERS, DEFAULT_CAP_ORIGIN + global.workers() + " - 1)");
        }
        ValueParser p = new ValueParser(values::get);
        ProjectionSettings settings = new ProjectionSettings(name,
                p.atLeastOne(labels.get(BATCH_SIZE), global.batchSize()),
                // a cap on this projection's drainers: more than the instance has would cap nothing
                p.whole(labels.get(WORKERS), defaultCap, 1, global.workers()),
                p.duration(labels.get(LEASE_TIME), global.leaseTime()),
                p.duration(labels.get(RETRY_DELAY), global.retryDelay()),
                p.duration(labels.get(MAX_RETRY_DELAY), global.maxRetryDelay()),
                // 0 here: never parked, whatever the global budget (globally, unset is never)
                p.whole(labels.get(MAX_ATTEMPTS), global.maxAttempts(), Settings.NEVER_PARK, 1_000_000),
                p.classNames(labels.get(NON_RETRYABLE), global.nonRetryable()),
                p.classNames(labels.get(BACK_PRESSURE), global.backPressure()),
                p.whole(labels.get(SUSPEND_AFTER_FAILING_KEYS), global.suspendAfterFailingKeys(),
                        Settings.NEVER_SUSPEND, 1_000_000),
                p.whole(labels.get(SUSPEND_FAILURE_PERCENT), global.suspendFailurePercent(), 1, 100),
                p.atLeastOne(labels.get(REBUILD_PAGE_SIZE), global.rebuildPageSize()),
                p.whole(labels.get(VERIFY_PER_MINUTE), global.verifyPerMinute(), 0, Settings.MAX_VERIFY_PER_MINUTE),
                p.duration(labels.get(FRESHNESS_OBJECTIVE), global.freshnessObjective()),
                p.optionalBool(labels.get(ONE_TRANSACTION), global.oneTransaction()),
                p.oneOf(labels.get(SYNCHRONOUS_COMMIT), global.synchronousCommit(), Settings.SYNCHRONOUS_COMMITS),
                origins);
        problems.addAll(p.errors);
        if (settings.leaseTime.compareTo(Settings.MIN_LEASE_TIME) < 0) { // a bad value fell back to the global one
            problems.add(labels.get(LEASE_TIME) + " must be at least " + Durations.format(Settings.MIN_LEASE_TIME)
                    + " (a refresh's timeout, at least 1 s, must fit in half the lease), was "
                    + Durations.format(settings.leaseTime));
        }
        if (settings.verifyPerMinute > 0 && !(projection instanceof Verifiable)
                && !origins.get(VERIFY_PER_MINUTE).endsWith("(global)")) {
            // a global rate samples the projections that can be verified; one set for this projection cannot be met
            problems.add(labels.get(VERIFY_PER_MINUTE) + "=" + settings.verifyPerMinute + ": projection " + name
                    + " does not implement dev.projections.Verifiable, so it cannot be sampled for drift");
        }
        if (p.errors.isEmpty() && settings.retryDelay.compareTo(settings.maxRetryDelay) > 0) {
            problems.add(labels.get(RETRY_DELAY) + " (" + Durations.format(settings.retryDelay) + ") must not exceed "
                    + labels.get(MAX_RETRY_DELAY) + " (" + Durations.format(settings.maxRetryDelay) + ") for projection "
                    + name);
        }
        return settings;
    }

    /**
     * Deployed projections whose environment variables cannot be told apart: two names that differ only in
     * {@code .}, {@code -} or {@code _}, or a name whose variable for a key is a global key's ({@code max} and
     * {@code retry-delay} make {@code PROJECTION_MAX_RETRY_DELAY}, which is {@code projection.max-retry-delay}).
     */
    static List<String> sharedVariables(Set<String> projections) {
        List<String> problems = new ArrayList<>();
        Map<String, String> byVariable = new TreeMap<>();
        Set<String> globalVariables = globalVariables();
        for (String name : projections) {
            String other = byVariable.put(variablePart(name), name);
            if (other != null) {
                problems.add("projections " + other + " and " + name + " would read the same environment variables "
                        + "(PROJECTION_" + variablePart(name) + "_…): rename one");
            }
            for (String key : KEYS) {
                String variable = Settings.environmentName(key(name, key));
                if (globalVariables.contains(variable)) {
                    problems.add("projection " + name + " would read its " + key + " from " + variable + ", which is "
                            + "a global key's variable: rename the projection");
                }
            }
        }
        return problems;
    }

    /**
     * Keys of {@code source} in the per-projection form whose projection is not deployed (a typo would otherwise be
     * ignored), and keys of a deployed projection that no projection may set. Environment variables are matched in
     * their form ({@code PROJECTION_<NAME>_<KEY>}). A key naming no deployed projection is a problem when it comes
     * from the deployment's own files; from a source the server shares with other applications, a warning.
     */
    static List<String> keysNamingNoProjection(SettingSource source, Set<String> projections) {
        List<String> problems = new ArrayList<>();
        Set<String> globalVariables = globalVariables();
        List<String> keys = KEYS;
        Map<String, String> projectionOfVariable = new TreeMap<>();
        projections.forEach(name -> projectionOfVariable.put(variablePart(name), name));
        String known = projections.isEmpty() ? "none" : String.join(", ", projections);
        for (String property : source.names()) {
            if (RESERVED.stream().anyMatch(property::startsWith)) {
                continue;
            }
            // every reading of the name as projection + key (PROJECTION_X_MAX_RETRY_DELAY: X + max-retry-delay, or
            // X_MAX + retry-delay): one that names a deployed projection is taken, else the name is a typo
            String deployed = null;
            String itsKey = null;
            boolean namesOne = false;
            for (String key : keys) {
                String named = null;
                if (property.startsWith("projection.") && property.endsWith("." + key)) {
                    named = property.substring("projection.".length(), Math.max("projection.".length(),
                            property.length() - key.length() - 1));
                } else if (property.startsWith("PROJECTION_") && property.endsWith("_" + variablePart(key))
                        && !globalVariables.contains(property)) {
                    String variable = property.substring("PROJECTION_".length(), Math.max("PROJECTION_".length(),
                            property.length() - variablePart(key).length() - 1));
                    named = variable.isEmpty() ? "" : projectionOfVariable.getOrDefault(variable, variable);
                }
                if (named == null || named.isEmpty()) {
                    continue;
                }
                namesOne = true;
                if (projections.contains(named) && deployed == null) {
                    deployed = named;
                    itsKey = key;
                }
            }
            SettingSource.Found found = source.find(property);
            String shown = property + (found == null ? "" : "=" + found.value());
            if (!namesOne) {
                String misspelt = misspeltKey(property, projections);
                if (misspelt != null) {
                    problems.add(shown + ": " + misspelt + " is not a setting a projection can have; these are: "
                            + String.join(", ", KEYS));
                }
                continue;
            }
            if (deployed == null) {
                String problem = shown + " names no deployed projection (deployed: " + known + ")";
                if (found != null && isPackaged(found.origin())) {
                    problems.add(problem);
                } else {
                    LOG.warning("PRJ301: " + problem + "; ignored: it comes from " + (found == null ? "the server" : found.origin())
                            + ", which other applications on this server may share");
                }
            }
        }
        return problems;
    }

    /**
     * Of {@code projection.<name>.<rest>} for a deployed {@code name}, {@code rest} when it is no key at all (a
     * misspelt one, {@code max-atempts}); the longest deployed name that prefixes the property is taken.
     */
    private static String misspeltKey(String property, Set<String> projections) {
        String longest = null;
        for (String name : projections) {
            String prefix = "projection." + name + ".";
            if (property.startsWith(prefix) && (longest == null || name.length() > longest.length())) {
                longest = name;
            }
        }
        if (longest == null) {
            return null;
        }
        String rest = property.substring(("projection." + longest + ".").length());
        return KEYS.contains(rest) ? null : rest;
    }

    /** Whether {@code origin} is one of the deployment's own files, not a source the server shares. */
    private static boolean isPackaged(String origin) {
        return origin.equals(PACKAGED_FILE) || origin.contains("microprofile-config.properties");
    }

    private static Set<String> globalVariables() {
        Set<String> variables = new TreeSet<>();
        KEYS.forEach(key -> variables.add(Settings.environmentName("projection." + key)));
        return variables;
    }

    /** {@code order-search} → {@code ORDER_SEARCH}, as {@link Settings#environmentName} maps a key. */
    private static String variablePart(String name) {
        return name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The projection's class, without the container's proxy suffix ({@code Foo$Proxy$_$$_WeldClientProxy}). */
    private static String codeName(Projection projection) {
        String name = projection.getClass().getName();
        for (String suffix : List.of("$Proxy$", "$$")) { // Weld's client proxies and subclasses
            int proxy = name.indexOf(suffix);
            if (proxy > 0) {
                name = name.substring(0, proxy);
            }
        }
        return name;
    }
}
