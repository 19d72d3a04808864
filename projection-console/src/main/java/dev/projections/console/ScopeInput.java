package dev.projections.console;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.OffsetDateTime;

/** What an operator types for "changed since": an instant, a UTC date and time, or a UTC date. */
final class ScopeInput {

    private ScopeInput() {
    }

    /** {@code 2026-12-01T10:00:00Z}, {@code 2026-12-01 10:00} or {@code 2026-12-01} (UTC). */
    static Instant instant(String text) {
        String value = text.trim();
        try {
            if (value.endsWith("Z") || value.matches(".*[+-]\\d\\d:\\d\\d$")) {
                return OffsetDateTime.parse(value).toInstant();
            }
            if (value.length() == 10) {
                return LocalDate.parse(value).atStartOfDay().toInstant(ZoneOffset.UTC);
            }
            return LocalDateTime.parse(value.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            // the console's own check of what was typed: a text of the bundle, shown after Rebuild
            throw new IllegalArgumentException(Text.of("rebuild-dialog.since.invalid", value), e);
        }
    }
}
