package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.refresh.WakeUpSignals.Heard;
import dev.projections.store.CommitSignals;
import dev.projections.store.Dialect;
import dev.projections.testsupport.TestDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Signals between instances on PostgreSQL (docs/design.md D55): a commit's signal reaches another instance's listener
 * once the transaction committed and never when it rolled back, an instance does not wake itself, and the listener
 * listens again after the database killed its connection. Each wait for a signal is bounded by a blocking take, and
 * "nothing arrived" is proven by a later signal that arrived first: PostgreSQL delivers signals in commit order.
 */
class PostgresCommitListenerTest {

    /** A channel of its own: other tests' instances on this database signal on theirs. */
    private static final CommitSignals SIGNALS = new CommitSignals(Dialect.POSTGRESQL, "listener_test");

    private final BlockingQueue<Heard> heard = new LinkedBlockingQueue<>();
    private final List<Integer> listenerBackends = new CopyOnWriteArrayList<>();
    private CommitListener listener;
    private Thread thread;

    @BeforeEach
    void listen() throws Exception {
        listener = new CommitListener(recordingBackends(), signalsOf("node-a", true), heard::add);
        thread = new Thread(listener, "commit-listener-test");
        thread.start();
        assertThat(heard.poll(30, TimeUnit.SECONDS)).as("the look when it starts listening").isEqualTo(Heard.REBUILD);
    }

    @AfterEach
    void stop() throws Exception {
        listener.stop();
        thread.join(10_000);
        assertThat(thread.isAlive()).as("the listener ended").isFalse();
    }

    @Test
    void anotherInstancesCommitIsHeardOnceCommittedAndNeverWhenRolledBack() throws Exception {
        try (Connection business = TestDatabase.get().connect()) {
            business.setAutoCommit(false);
            signalsOf("web-1", false).marksWritten(business);
            sentinel();
            assertThat(heard).as("nothing of the open transaction").isEmpty();
            business.rollback();
            sentinel();
            assertThat(heard).as("nothing of the rolled-back transaction").isEmpty();

            signalsOf("web-1", false).marksWritten(business);
            business.commit();
            assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo(Heard.MARKS);
            sentinel();
            assertThat(heard).as("the committed one, once").isEmpty();
        }
    }

    @Test
    void aChannelOfTheLongestSchemaNameIsOnePostgreSQLTakes() throws Exception {
        CommitSignals longest = new CommitSignals(Dialect.POSTGRESQL, "s".repeat(63));
        try (Connection connection = TestDatabase.get().connect(); Statement statement = connection.createStatement()) {
            longest.send(connection, "marks node-z"); // a name PostgreSQL would refuse throws here
            statement.execute("LISTEN \"" + longest.channel() + "\"");
            try (ResultSet channels = statement.executeQuery("SELECT pg_listening_channels()")) {
                assertThat(channels.next()).isTrue();
                assertThat(channels.getString(1)).as("LISTEN kept the whole name").isEqualTo(longest.channel());
            }
        }
    }

    @Test
    void aWebNodeAlwaysSignalsItsMarksAProcessingInstanceOnlyWhileAnotherLiveOneIsCounted() throws Exception {
        EngineStats stats = new EngineStats();
        WakeUpSignals alone = new WakeUpSignals(SIGNALS, "node-b", true, true, stats);
        try (Connection connection = TestDatabase.get().connect()) {
            alone.marksWritten(connection); // not counted yet: its own drainers have its keys
            sentinel();
            assertThat(heard).isEmpty();
            signalsOf("web-1", false).marksWritten(connection); // a web node, counted or not: heard
            assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo(Heard.MARKS);
            new WakeUpSignals(SIGNALS, "web-2", false, false, new EngineStats()).marksWritten(connection);
            sentinel();
            assertThat(heard).as("an instance without projection.listen-datasource sends nothing").isEmpty();
            stats.processingCounted(new ProcessingCount(1, java.util.Map.of(), 1));
            alone.marksWritten(connection); // the only processing instance
            sentinel();
            assertThat(heard).isEmpty();

            stats.processingCounted(new ProcessingCount(2, java.util.Map.of(), 0));
            alone.marksWritten(connection);
            assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo(Heard.MARKS);
        }
    }

    @Test
    void aProcessingInstanceSignalsItsRefreshesOnlyWhileItCountsALiveWebNode() throws Exception {
        EngineStats stats = new EngineStats();
        WakeUpSignals processing = new WakeUpSignals(SIGNALS, "node-b", true, true, stats);
        assertThat(processing.toWebNodes()).as("not counted yet").isFalse();
        stats.processingCounted(new ProcessingCount(1, java.util.Map.of(), 0));
        assertThat(processing.toWebNodes()).as("no web node").isFalse();
        assertThat(signalsOf("web-1", false).toWebNodes()).as("a web node refreshes nothing").isFalse();

        stats.processingCounted(new ProcessingCount(1, java.util.Map.of(), 1));
        assertThat(processing.toWebNodes()).isTrue();
        try (Connection connection = TestDatabase.get().connect()) {
            processing.refreshed(connection);
        }
        assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo(Heard.REFRESHED);
    }

    @Test
    void anInstanceIgnoresItsOwnSignals() throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            signalsOf("node-a", false).marksWritten(connection);
            signalsOf("node-a", false).rebuildStarted(connection);
            sentinel();
            assertThat(heard).isEmpty();
        }
    }

    @Test
    void aListenerWhoseConnectionTheDatabaseKilledListensAgainAndLooks() throws Exception {
        int first = listenerBackends.get(0);
        try (Connection admin = TestDatabase.get().connect(); Statement statement = admin.createStatement()) {
            statement.execute("SELECT pg_terminate_backend(" + first + ")");
        }
        assertThat(heard.poll(30, TimeUnit.SECONDS)).as("the look when it listens again").isEqualTo(Heard.REBUILD);
        assertThat(listenerBackends).hasSize(2);
        assertThat(listener.listening()).isTrue();

        try (Connection connection = TestDatabase.get().connect()) {
            signalsOf("web-1", false).marksWritten(connection);
            assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo(Heard.MARKS);
        }
    }

    /** A rebuild signal of another instance, committed now, and heard: every signal committed before it was too. */
    private void sentinel() throws Exception {
        try (Connection connection = TestDatabase.get().connect()) {
            signalsOf("node-c", false).rebuildStarted(connection);
        }
        assertThat(heard.poll(30, TimeUnit.SECONDS)).as("the sentinel").isEqualTo(Heard.REBUILD);
    }

    private static WakeUpSignals signalsOf(String instance, boolean processing) {
        return new WakeUpSignals(SIGNALS, instance, processing, true, new EngineStats());
    }

    /** Connections of the test database, each one's backend recorded (the listener's, here). */
    private DataSource recordingBackends() {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("getConnection")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Connection connection = TestDatabase.get().connect();
                    try (Statement statement = connection.createStatement();
                         ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
                        pid.next();
                        listenerBackends.add(pid.getInt(1));
                    } catch (SQLException e) {
                        connection.close();
                        throw e;
                    }
                    return connection;
                });
    }
}
