package dev.projections.console;

import dev.projections.ProjectionStatus;
import dev.projections.config.Durations;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.Settings;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.ErrorGroup;
import dev.projections.inspect.MarkFilter;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.time.temporal.ChronoUnit;

/**
 * One projection's page (docs/contract.md §12), a GET page ({@code projection.xhtml?name=…&window=day}): its state and
 * counts, the settings in force, its trends over the last hour or day, its top errors, its latest rebuild and
 * verification runs, the drift found over the last day with the way to verify it, and links to its lists.
 */
@Named("projectionsProjection")
@RequestScoped
public class ProjectionPage {

    /** Rebuild runs shown; the Rebuilds page has them all. */
    static final int RUNS = 5;

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleClock clock;

    private String name;
    private String window = "hour";
    private ProjectionStatus status;
    private TrendCharts charts;
    private ProjectionRow row;
    private List<ErrorGroup> topErrors = List.of();
    private List<RebuildLine> runs = List.of();
    private long driftedDay;
    private boolean verifiable;

    /** Reads the projection once its parameters are set; an unknown name shows the page's "not deployed" line. */
    public void open() {
        status = name == null ? null : reads.overview().stream().filter(s -> s.projection().equals(name)).findFirst()
                .orElse(null);
        if (status == null) {
            return;
        }
        Instant now = clock.now();
        Instant engineNow = clock.engineNow();
        TrendWindow.Span span = TrendWindow.Span.of(window);
        charts = new TrendCharts(name, TrendWindow.of(span, engineNow,
                reads.trend(name, TrendWindow.start(span, engineNow), engineNow)));
        row = new ProjectionRow(status, reads.rebuildable(name), false,
                reads.refreshesPerMinute().getOrDefault(name, 0L), now)
                .withLag(reads.lag(name, TrendWindow.start(TrendWindow.Span.HOUR, engineNow),
                                engineNow.truncatedTo(ChronoUnit.MINUTES)), // ended minutes only
                        reads.freshnessObjective(name));
        topErrors = status.failing() == 0 ? List.of() : reads.topErrors(MarkFilter.failing(name)).groups();
        runs = reads.rebuildHistory(name, RUNS).stream().map(run -> new RebuildLine(run, now)).toList();
        driftedDay = reads.driftedSince(name, engineNow.minus(Duration.ofDays(1)));
        verifiable = reads.verifiable(name);
    }

    /** The keys found drifted over the last 24 hours, by samples and verifications on every instance. */
    public String getDriftDay() {
        return Text.of("projection.drift.day.value", driftedDay);
    }

    /** The continuous sample's rate, or how to turn it on. */
    public String getDriftSample() {
        int rate = reads.projectionSettings(name).verifyPerMinute();
        return rate == 0 || !verifiable ? Text.of("projection.drift.sample.off", name)
                : Text.of("projection.drift.sample.on", rate);
    }

    /** Whether the page offers "Verify…": the projection implements {@code Verifiable}. */
    public boolean isVerifiable() {
        return verifiable;
    }

    public String getVerifyUnavailable() {
        return Text.of("projection.verify.unavailable", name);
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name == null || name.isBlank() ? null : name;
    }

    public String getWindow() {
        return window;
    }

    public void setWindow(String window) {
        this.window = TrendWindow.Span.of(window) == TrendWindow.Span.DAY ? "day" : "hour";
    }

    public boolean isDay() {
        return "day".equals(window);
    }

    public boolean isKnown() {
        return status != null;
    }

    public ProjectionRow getRow() {
        return row;
    }

    /** "(3 parked)" beside the failing count. */
    public String getParkedNote() {
        return status == null ? "" : Text.of("projection.parked-count", Format.number(status.parked()));
    }

    public String getBacklogChart() {
        return charts == null ? "" : charts.backlog(TrendChart.full());
    }

    public String getRateChart() {
        return charts == null ? "" : charts.rate(TrendChart.full());
    }

    public String getP99Chart() {
        return charts == null ? "" : charts.p99(TrendChart.full());
    }

    /**
     * The settings that govern this projection's marks on the instance serving the console: its batch and its cap
     * on the instance's drainers, the instance's own (one value for every projection), then the rest of this
     * projection's, each under the key that would change it (for this projection alone where it can be), with where
     * its value came from.
     */
    public List<SettingLine> getSettings() {
        Settings s = reads.settings();
        List<SettingLine> settings = new ArrayList<>();
        ProjectionSettings own = name == null ? null : reads.projectionSettings(name);
        if (own == null) {
            settings.add(global(Settings.BATCH_SIZE, Format.number(s.batchSize())));
        } else {
            settings.add(own(own, ProjectionSettings.BATCH_SIZE, Format.number(own.batchSize())));
            // of the instance's drainers, how many may work on this projection at once
            settings.add(own(own, ProjectionSettings.WORKERS, Format.number(own.workers())));
            settings.add(own(own, ProjectionSettings.LEASE_TIME, Durations.format(own.leaseTime())));
        }
        settings.add(global(Settings.WORKERS, Format.number(s.workers())));
        if (own == null) {
            settings.add(global(Settings.LEASE_TIME, Durations.format(s.leaseTime())));
        }
        settings.add(global(Settings.SWEEP_INTERVAL, Durations.format(s.sweepInterval())));
        settings.add(global(Settings.PROBE_INTERVAL, Durations.format(s.probeInterval())));
        settings.add(global(Settings.TREND_RETENTION, Durations.format(s.trendRetention())));
        settings.add(global(Settings.AUDIT_RETENTION, Durations.format(s.retention().audit())));
        settings.add(global(Settings.REBUILD_RETENTION, Durations.format(s.retention().rebuildRuns())));
        if (own == null) {
            return settings;
        }
        settings.add(own(own, ProjectionSettings.RETRY_DELAY, Durations.format(own.retryDelay())));
        settings.add(own(own, ProjectionSettings.MAX_RETRY_DELAY, Durations.format(own.maxRetryDelay())));
        settings.add(own(own, ProjectionSettings.MAX_ATTEMPTS, own.maxAttempts() == Settings.NEVER_PARK
                ? Text.of("projection.never-park") : Format.number(own.maxAttempts())));
        settings.add(own(own, ProjectionSettings.SUSPEND_AFTER_FAILING_KEYS,
                own.suspendAfterFailingKeys() == Settings.NEVER_SUSPEND ? Text.of("projection.never-suspend")
                        : Text.of("projection.suspend-rule", own.suspendAfterFailingKeys(), own.suspendFailurePercent())));
        settings.add(own(own, ProjectionSettings.SUSPEND_FAILURE_PERCENT, Format.number(own.suspendFailurePercent())));
        settings.add(own(own, ProjectionSettings.REBUILD_PAGE_SIZE, Format.number(own.rebuildPageSize())));
        settings.add(own(own, ProjectionSettings.NON_RETRYABLE,
                own.nonRetryable().isEmpty() ? "–" : String.join(", ", own.nonRetryable())));
        settings.add(own(own, ProjectionSettings.BACK_PRESSURE,
                own.backPressure().isEmpty() ? "–" : String.join(", ", own.backPressure())));
        settings.add(own(own, ProjectionSettings.FRESHNESS_OBJECTIVE,
                own.freshnessObjective() == null ? "–" : Durations.format(own.freshnessObjective())));
        return settings;
    }

    private SettingLine global(String key, String value) {
        return new SettingLine(key, value, reads.settingOrigin(key));
    }

    private static SettingLine own(ProjectionSettings own, String key, String value) {
        return new SettingLine(ProjectionSettings.key(own.projection(), key), value, own.origins().get(key));
    }

    /** The most frequent errors among the projection's failing marks. */
    public List<ErrorGroup> getTopErrors() {
        return topErrors;
    }

    public List<RebuildLine> getRuns() {
        return runs;
    }
}
