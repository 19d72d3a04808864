package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pending-table contract on MariaDB ({@code PROJECTION_TEST_MARIADB_URL}), in a database of its own created by
 * the changelog. Connections keep the server's default isolation, REPEATABLE READ, as an application's would; the
 * contract runs the engine's transactions through {@link Tables#beginEngineTransaction}.
 */
class MariaDbPendingQueueTest extends PendingQueueContract {

    private static String url;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = LiquibaseSchema.freshMariaDb("pending_store");
    }

    @Override
    protected Tables store() {
        return Tables.forProduct("MariaDB");
    }

    @Override
    protected boolean claimsPastHeldRows() {
        return false; // its claim locks only its candidates (docs/pitfalls.md #94): beside a claimer of them, short
    }

    @Override
    protected Connection connect() throws SQLException {
        return LiquibaseSchema.mariaDb().connect(url);
    }

    private final MariaDbSessions sessions = new MariaDbSessions();

    @Override
    protected long sessionId(Connection connection) throws SQLException {
        return MariaDbSessions.connectionId(connection);
    }

    @Override
    protected boolean isWaitingForALock(Connection observer, long sessionId) throws SQLException {
        return sessions.isWaitingForALock(observer, sessionId);
    }

    /**
     * MariaDB's take is two statements, and its lock may wait past the transaction's timeout (docs/pitfalls.md #94): a
     * transaction the container ended between the lock and the delete must not have the delete commit on its own,
     * which would end the mark for good with its refresh thrown away (design D61). The connection here says it is in
     * a transaction at the claim's first question and commits each statement from then on.
     */
    private static final String TOKEN = "the-claim-after-the-end";

    @Test
    void aTakeWhoseTransactionEndedWhileItsLockWaitedLeasesTheMarkAndNeverEndsIt() throws Exception {
        mark(at(0), ORDER_1);
        try (Connection connection = connect()) {
            connection.setAutoCommit(true);
            AtomicInteger asked = new AtomicInteger();
            Connection endedAfterTheFirstQuestion = (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getAutoCommit")) {
                            return asked.getAndIncrement() > 0;
                        }
                        try {
                            return method.invoke(connection, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            ClaimsInRefresh.Claimed claim = new ClaimsInRefresh(store().queue()).claim(endedAfterTheFirstQuestion,
                    List.of(ORDER_1), at(1), LEASE, TOKEN);
            assertThat(asked).as("asked again before the delete").hasValueGreaterThan(1);
            assertThat(claim.taken()).as("claimed, so acked by the ordinary rules").isFalse();
            assertThat(claim.marks()).extracting(ClaimedMark::key).containsExactly(ORDER_1);
        }
        assertThat(row(ORDER_1)).as("still pending").isNotNull();
        assertThat(row(ORDER_1).claimToken()).as("leased").isEqualTo(TOKEN);
    }
}
