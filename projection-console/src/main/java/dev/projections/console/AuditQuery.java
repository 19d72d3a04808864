package dev.projections.console;

import dev.projections.inspect.AuditFilter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The audit log's filter as GET parameters, shared by the page ({@code audit.xhtml?user=…}) and its CSV export
 * ({@code audit.csv?user=…}): {@code user}, {@code action}, {@code projection} (exact), {@code from} and {@code to}
 * (a UTC instant {@code 2026-12-01T08:00:00Z}, a UTC date-time {@code 2026-12-01T08:00}, or a date; {@code from} is
 * inclusive, {@code to} exclusive, and a {@code to} date includes its whole day), and {@code before}, the id the page
 * continues below. What cannot be read is named in {@link #problems()}; with problems there is no filter, so that
 * nobody takes an unfiltered list for a filtered one.
 */
public final class AuditQuery {

    private final String user;
    private final String action;
    private final String projection;
    private final String from;
    private final String to;
    private final Long before;
    private final AuditFilter filter;
    private final List<String> problems;

    private AuditQuery(String user, String action, String projection, String from, String to, Long before,
                       AuditFilter filter, List<String> problems) {
        this.user = user;
        this.action = action;
        this.projection = projection;
        this.from = from;
        this.to = to;
        this.before = before;
        this.filter = filter;
        this.problems = problems;
    }

    /** The query of {@code parameters}, its problems worded in {@code locale}. */
    public static AuditQuery from(Map<String, String> parameters, Locale locale) {
        List<String> problems = new ArrayList<>();
        String user = text(parameters, "user");
        String action = text(parameters, "action");
        String projection = text(parameters, "projection");
        String from = text(parameters, "from");
        String to = text(parameters, "to");
        Instant start = instant("from", from, false, locale, problems);
        Instant end = instant("to", to, true, locale, problems);
        Long before = null;
        String beforeText = text(parameters, "before");
        if (!beforeText.isEmpty()) {
            try {
                before = Long.parseLong(beforeText);
            } catch (NumberFormatException notANumber) {
                problems.add(Text.of(locale, "audit.bad-before", beforeText));
            }
        }
        AuditFilter filter = null;
        if (problems.isEmpty()) {
            try {
                filter = new AuditFilter(user, action, projection, start, end);
            } catch (IllegalArgumentException emptyRange) {
                problems.add(Text.of(locale, "audit.bad-range", from, to));
            }
        }
        return new AuditQuery(user, action, projection, from, to, before, filter, List.copyOf(problems));
    }

    private static String text(Map<String, String> parameters, String name) {
        String value = parameters.get(name);
        return value == null ? "" : value.trim();
    }

    /**
     * {@code value} as an instant: an ISO instant, a date-time without zone (UTC, as the browser's
     * {@code datetime-local} field sends it), or a date — its start, or for the end of a range the start of the next
     * day, so that "to 2026-12-01" includes that day.
     */
    static Instant instant(String name, String value, boolean end, Locale locale, List<String> problems) {
        if (value.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException notAnInstant) {
            // try the next form
        }
        try {
            return LocalDateTime.parse(value.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException notADateTime) {
            // try the next form
        }
        try {
            LocalDate day = LocalDate.parse(value);
            return (end ? day.plusDays(1) : day).atStartOfDay().toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException notADate) {
            problems.add(Text.of(locale, "audit.bad-time", name, value));
            return null;
        }
    }

    /** The filter, or {@code null} when {@link #problems()} names what could not be read. */
    public AuditFilter filter() {
        return filter;
    }

    /** The id the page continues below, {@code null} for the newest entries. */
    public Long before() {
        return before;
    }

    public List<String> problems() {
        return problems;
    }

    /** The filter's parameters as typed (no position): for the "older" link, the newest page and the export. */
    public String filterQueryString() {
        return new QueryString().addNonEmpty("user", user).addNonEmpty("action", action)
                .addNonEmpty("projection", projection).addNonEmpty("from", from).addNonEmpty("to", to).toString();
    }

    public String user() {
        return user;
    }

    public String action() {
        return action;
    }

    public String projection() {
        return projection;
    }

    public String fromText() {
        return from;
    }

    public String toText() {
        return to;
    }
}
