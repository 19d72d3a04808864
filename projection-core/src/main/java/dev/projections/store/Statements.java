package dev.projections.store;

import dev.projections.MarkKey;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** What the statements of every table bind alike: a mark's key, a text cut to its column. */
final class Statements {

    /** The longest error text a row keeps ({@code last_error}). */
    static final int MAX_ERROR_LENGTH = 500;

    private Statements() {
    }

    /** Binds {@code key} as projection, tenant, id from {@code index}; returns the index after them. */
    static int bindKey(PreparedStatement statement, int index, MarkKey key) throws SQLException {
        statement.setString(index, key.projection());
        statement.setString(index + 1, key.tenantId());
        statement.setString(index + 2, key.entityId());
        return index + 3;
    }

    static String truncate(String error) {
        return truncate(error, MAX_ERROR_LENGTH);
    }

    static String truncate(String text, int max) {
        if (text == null) {
            return null;
        }
        return text.length() <= max ? text : text.substring(0, max);
    }
}
