package dev.projections.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.text.MessageFormat;

/**
 * Collects the warnings the product logs during a scenario (a failed refresh, a rolled-back rebuild step): a
 * benchmark that only prints speeds would hide them. The libraries around it are turned down to warnings.
 */
public final class LogWatch extends Handler {

    private static final int KEPT = 5;
    /* held, so the levels stick */
    private static final List<Logger> TUNED = new ArrayList<>();
    private static LogWatch installed;

    private final List<String> seen = new ArrayList<>();
    private int count;

    public static synchronized LogWatch install() {
        if (installed == null) {
            for (String noisy : List.of("org.hibernate", "com.zaxxer.hikari", "liquibase", "org.postgresql")) {
                Logger logger = Logger.getLogger(noisy);
                logger.setLevel(Level.WARNING);
                TUNED.add(logger);
            }
            installed = new LogWatch();
            installed.setLevel(Level.WARNING);
            Logger product = Logger.getLogger("dev.projections");
            product.addHandler(installed);
            TUNED.add(product);
        }
        return installed;
    }

    @Override
    public synchronized void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        count++;
        if (seen.size() < KEPT) {
            String message = record.getMessage();
            Object[] parameters = record.getParameters();
            if (parameters != null && parameters.length > 0) {
                message = MessageFormat.format(message, parameters);
            }
            seen.add(record.getLevel() + " " + record.getLoggerName() + ": " + message);
        }
    }

    /** The warnings since the last call, reported as problems of {@code report}; then forgets them. */
    public synchronized void reportTo(ScenarioReport report) {
        if (count > 0) {
            report.problem("the product logged " + count + " warning(s), first: " + String.join(" | ", seen));
        }
        count = 0;
        seen.clear();
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
