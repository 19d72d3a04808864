package dev.projections.store;

import dev.projections.MarkKey;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A mark this worker claimed: its generation at claim time and the token that proves the claim. {@code address} is
 * the claimed row's physical address where the claim returned it ({@code "tableoid ctid"} on PostgreSQL), else
 * {@code null}: a hint for the ack, valid only while nobody changed the row since the claim. {@code firstMarkedAt} is
 * the row's {@code first_marked_at} as claimed (when the change waiting longest was marked: the start of the key's
 * lag), {@code null} where the claim did not read it.
 */
public record ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil,
                          int attempts, int priority, String address, Instant firstMarkedAt) {

    public ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil, int attempts,
                       int priority, String address) {
        this(key, generation, token, claimedAt, leaseUntil, attempts, priority, address, null);
    }

    public ClaimedMark(MarkKey key, String generation, String token, Instant claimedAt, Instant leaseUntil, int attempts,
                       int priority) {
        this(key, generation, token, claimedAt, leaseUntil, attempts, priority, null, null);
    }

    /**
     * The marks a claim statement returns, in a claim's columns (key, generation, attempts, priority, then the row's
     * address where {@code addressed}, and {@code first_marked_at} by name), held by {@code token} until the lease's end.
     */
    static List<ClaimedMark> readAll(PreparedStatement select, Dialect dialect, String token, Instant now,
                                     Duration lease, boolean addressed) throws SQLException {
        List<ClaimedMark> marks = new ArrayList<>();
        try (ResultSet rows = select.executeQuery()) {
            int firstMarkedAt = rows.findColumn("first_marked_at");
            while (rows.next()) {
                marks.add(new ClaimedMark(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)),
                        rows.getString(4), token, now, now.plus(lease), rows.getInt(5), rows.getInt(6),
                        addressed ? rows.getString(7) : null, dialect.instant(rows, firstMarkedAt)));
            }
        }
        return marks;
    }
}
