package dev.projections.store;

import static dev.projections.store.Statements.bindKey;

import dev.projections.MarkKey;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * How a statement that ends a claim finds each mark's row (docs/design.md D42): by its key where the database always
 * reads the primary key for that, or by the physical address a lock by key returned where the planner could take
 * another index instead (PostgreSQL on a queue last analyzed while empty walked the tenant's due index, docs/pitfalls.md
 * #29). The condition ends with the claim token, bound by the caller after the locator's values.
 */
abstract class RowLocator {

    /** The statement's condition: the row, then {@code AND claim_token = ?}. */
    abstract String where();

    /** Binds {@code key}'s row from {@code index}; returns the index after it. */
    abstract int bind(PreparedStatement statement, int index, MarkKey key) throws SQLException;

    static final RowLocator BY_KEY = new RowLocator() {
        @Override
        String where() {
            return " WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND claim_token = ?";
        }

        @Override
        int bind(PreparedStatement statement, int index, MarkKey key) throws SQLException {
            return bindKey(statement, index, key);
        }
    };

    /** By the addresses ({@code "tableoid ctid"}) of rows this transaction holds locked, so they cannot move. */
    static RowLocator byAddress(Map<MarkKey, String> addresses) {
        return new RowLocator() {
            @Override
            String where() {
                return " WHERE tableoid = ?::oid AND ctid = ?::tid AND claim_token = ?";
            }

            @Override
            int bind(PreparedStatement statement, int index, MarkKey key) throws SQLException {
                String address = addresses.get(key);
                int space = address.indexOf(' ');
                statement.setLong(index, Long.parseLong(address.substring(0, space)));
                statement.setString(index + 1, address.substring(space + 1));
                return index + 2;
            }
        };
    }
}
