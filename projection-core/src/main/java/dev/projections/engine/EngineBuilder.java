package dev.projections.engine;

import dev.projections.config.ProjectionSettings;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.refresh.DatabaseTroubleLog;
import dev.projections.refresh.EngineStats;
import dev.projections.refresh.Handoff;
import dev.projections.refresh.ProjectionCatalog;
import dev.projections.refresh.Sweep;
import dev.projections.refresh.WakeUpSignals;
import dev.projections.store.Tables;
import dev.projections.trend.RefreshMinutes;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * What an {@link Engine} is built from: the engine's datasource, the projections, the {@link Container} it runs in
 * and the {@link Observers} it tells; everything else has a default an instance of its own would want.
 */
public final class EngineBuilder {

    DataSource dataSource;
    Tables store;
    WakeUpSignals signals;
    Container container;
    Observers observers = Observers.NONE;
    Settings settings;
    ProjectionCatalog projections;
    EngineStats stats;
    Handoff handoff;
    String instanceId;
    Sweep.Troubles troubles;
    Consumer<RuntimeException> unexpected = e -> { };
    RefreshMinutes refreshMinutes;
    boolean rebuildSteps = true;

    EngineBuilder() {
    }

    /** The engine's datasource: the store's dialect is read from it, and the operations' SQL runs on it. */
    public EngineBuilder dataSource(DataSource dataSource) {
        this.dataSource = dataSource;
        return this;
    }

    /**
     * The parts the instance already has ({@link Foundation}): its datasource, store, counters, refreshes per minute
     * and name.
     */
    public EngineBuilder foundation(Foundation foundation) {
        this.dataSource = foundation.dataSource();
        this.store = foundation.store();
        this.stats = foundation.stats();
        this.refreshMinutes = foundation.refreshMinutes();
        this.instanceId = foundation.instanceId();
        this.signals = foundation.signals();
        return this;
    }

    /** A store made elsewhere (shared by several engines on one database); default: one on the datasource. */
    public EngineBuilder store(Tables store) {
        this.store = store;
        return this;
    }

    /** What only the container knows: transactions, threads, run-as, after-commit work, tenants, the clock. */
    public EngineBuilder container(Container container) {
        this.container = container;
        return this;
    }

    /** Whoever is told of refreshes, lags, traces, lifecycle events and pause changes; none by default. */
    public EngineBuilder observers(Observers observers) {
        this.observers = Objects.requireNonNull(observers, "observers");
        return this;
    }

    /** Default: the settings as the server reads them, each projection's own too (no deployment file here). */
    public EngineBuilder settings(Settings settings) {
        this.settings = settings;
        return this;
    }

    public EngineBuilder projections(ProjectionCatalog projections) {
        this.projections = projections;
        return this;
    }

    /** Counters shared with whoever reads them (the gauges, the overview); default: new ones. */
    public EngineBuilder stats(EngineStats stats) {
        this.stats = stats;
        return this;
    }

    /** Default: {@link Handoff#of} the settings. */
    public EngineBuilder handoff(Handoff handoff) {
        this.handoff = handoff;
        return this;
    }

    /** This instance's name beside its claims and in the instances' table; default: the host name. */
    public EngineBuilder instanceId(String instanceId) {
        this.instanceId = instanceId;
        return this;
    }

    /** Where database trouble is counted and reported once per sweep; default: a {@link DatabaseTroubleLog}. */
    public EngineBuilder troubles(Sweep.Troubles troubles) {
        this.troubles = troubles;
        return this;
    }

    /** Told what a drainer ended on besides database trouble, after it was logged; default: nobody. */
    public EngineBuilder unexpected(Consumer<RuntimeException> unexpected) {
        this.unexpected = unexpected;
        return this;
    }

    /** This instance's refreshes per minute, which the trends write; default: new ones on the clock. */
    public EngineBuilder refreshMinutes(RefreshMinutes refreshMinutes) {
        this.refreshMinutes = refreshMinutes;
        return this;
    }

    /** Drainers only refresh; there is no sweep and no operations (tests and benchmarks of the refresh loop alone). */
    public EngineBuilder withoutRebuildSteps() {
        this.rebuildSteps = false;
        return this;
    }

    public Engine build() {
        Objects.requireNonNull(projections, "projections");
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(container, "container");
        if (settings == null) {
            SettingSource source = SettingSource.standard(System.getProperties(), System.getenv(), new Properties());
            settings = ProjectionSettings.resolve(Settings.load(source), source,
                    projections.names().stream().map(projections::byName).toList());
        }
        if (instanceId == null) {
            instanceId = Foundation.instanceName(null);
        }
        if (store == null) {
            store = Tables.forDatabase(dataSource, instanceId);
        }
        if (stats == null) {
            stats = new EngineStats();
        }
        if (handoff == null) {
            handoff = Handoff.of(settings);
        }
        if (troubles == null) {
            troubles = new DatabaseTroubleLog();
        }
        if (refreshMinutes == null) {
            refreshMinutes = new RefreshMinutes(container.clock());
        }
        if (signals == null) {
            signals = Foundation.signals(settings, store, instanceId, stats);
        }
        return new Engine(this);
    }
}
