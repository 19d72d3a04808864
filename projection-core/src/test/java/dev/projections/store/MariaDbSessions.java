package dev.projections.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The MariaDB contract tests' view of sessions: a connection's id, and whether a session waits for a lock. */
public final class MariaDbSessions {

    /*
     * InnoDB serves information_schema.INNODB_TRX from a cache it refreshes only when the last read is more than
     * 100 ms old: polled every few milliseconds it never changes again (docs/pitfalls.md #54). So it is read at
     * most every 150 ms, and in between the session counts as not (yet) waiting.
     */
    private long lastRead;

    public static long connectionId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT CONNECTION_ID()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    public boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        if (System.nanoTime() - lastRead < 150_000_000L) {
            return false;
        }
        try (PreparedStatement statement = observer.prepareStatement(
                "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'")) {
            statement.setLong(1, sessionId);
            try (ResultSet rows = statement.executeQuery()) {
                lastRead = System.nanoTime();
                rows.next();
                return rows.getLong(1) > 0;
            }
        }
    }
}
