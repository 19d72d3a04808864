package dev.projections.store;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Instants are bound as UTC {@code TIMESTAMP WITH TIME ZONE} values on every dialect. */
public final class Timestamps {

    private Timestamps() {
    }

    public static OffsetDateTime utc(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    static Instant instant(OffsetDateTime value) {
        return value == null ? null : value.toInstant();
    }

    /** Column {@code column} of the current row as an instant, {@code null} for SQL NULL. */
    public static Instant instant(java.sql.ResultSet rows, int column) throws java.sql.SQLException {
        return instant(rows.getObject(column, OffsetDateTime.class));
    }
}
