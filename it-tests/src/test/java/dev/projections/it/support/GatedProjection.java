package dev.projections.it.support;

import dev.projections.Projection;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A test projection whose refresh can be held at a chosen point: it copies {@code gated_source.value} to
 * {@code gated_model.value} (no source row: no model row), and a {@link Gate} set for an id makes its next
 * refresh stop after reading the source and before writing, until the test releases it. It can also be told to
 * fail, and records every call with the tenant it ran under.
 */
@ApplicationScoped
public class GatedProjection implements Projection {

    public static final String NAME = "gated";

    /** Entered when the refresh has read the source; released by the test to let it write. */
    public static final class Gate {
        public final CountDownLatch entered = new CountDownLatch(1);
        public final CountDownLatch release = new CountDownLatch(1);
    }

    public record Call(String id, String valueRead, String tenant, String thread, boolean asSystem) {
    }

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @Inject
    RecordingTenantScope tenantScope;

    @jakarta.ejb.EJB
    IdentityProbe identity;

    private final Map<String, Gate> gates = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
    private final Set<String> poisoned = ConcurrentHashMap.newKeySet();
    private final Set<String> forGood = ConcurrentHashMap.newKeySet();
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<List<String>> batches = new CopyOnWriteArrayList<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger peakRunning = new AtomicInteger();

    @Override
    public String name() {
        return NAME;
    }

    /** Creates the source and model tables the projection copies between. */
    public static void createTables(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection(); java.sql.Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS gated_source (id VARCHAR(200) PRIMARY KEY, value VARCHAR(200))");
            statement.execute("CREATE TABLE IF NOT EXISTS gated_model (id VARCHAR(200) PRIMARY KEY, value VARCHAR(200))");
        }
    }

    public Gate gate(String id) {
        Gate gate = new Gate();
        gates.put(id, gate);
        return gate;
    }

    /** The next {@code times} refreshes of {@code id} throw after reading (and after any gate). */
    public void failNext(String id, int times) {
        failures.put(id, new AtomicInteger(times));
    }

    /** Every refresh of {@code id}, and every batch holding it, throws. */
    public void poison(String id) {
        poisoned.add(id);
    }

    /** Every refresh of {@code id} throws {@link dev.projections.NonRetryableRefreshException}: parked at once. */
    public void failForGood(String id) {
        forGood.add(id);
    }

    /** While on, every refresh throws, as when the projection's backend is down. */
    public void outage(boolean on) {
        outage = on;
    }

    private volatile boolean outage;

    /** Undoes {@link #poison} and {@link #failForGood}: {@code id} refreshes again. */
    public void cure(String id) {
        poisoned.remove(id);
        forGood.remove(id);
    }

    public List<Call> calls(String id) {
        return calls.stream().filter(c -> c.id().equals(id)).toList();
    }

    public List<List<String>> batches() {
        return batches;
    }

    /** The most refreshes (or batches) that ever ran at once. */
    public int peakRunning() {
        return peakRunning.get();
    }

    public int callCount() {
        return calls.size();
    }

    /** Every refresh (and batch) from now on waits, before it reads, until the returned latch is counted down. */
    public CountDownLatch holdAll() {
        CountDownLatch release = new CountDownLatch(1);
        holdAll = release;
        return release;
    }

    /** Refreshes (or batches) running now. */
    public int running() {
        return running.get();
    }

    private volatile CountDownLatch holdAll;

    private void waitIfHeld() throws InterruptedException {
        CountDownLatch release = holdAll;
        if (release != null && !release.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the hold on every refresh was never released");
        }
    }

    public void reset() {
        holdAll = null;
        peakRunning.set(0);
        gates.clear();
        failures.clear();
        poisoned.clear();
        forGood.clear();
        outage = false;
        calls.clear();
        batches.clear();
    }

    @Override
    public void refreshAll(List<String> ids) throws Exception {
        batches.add(List.copyOf(ids));
        peakRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
            waitIfHeld();
            refreshEach(ids);
        } finally {
            running.decrementAndGet();
        }
    }

    private void refreshEach(List<String> ids) throws Exception {
        for (String id : ids) {
            if (poisoned.contains(id)) {
                throw new IllegalStateException("batch holds poisoned id " + id);
            }
        }
        for (String id : ids) {
            copy(id);
        }
    }

    @Override
    public void refresh(String id) throws Exception {
        peakRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
            waitIfHeld();
            copy(id);
        } finally {
            running.decrementAndGet();
        }
    }

    private void copy(String id) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            String value = read(connection, id);
            calls.add(new Call(id, value, tenantScope.current(), Thread.currentThread().getName(),
                    identity.callerIsSystem()));
            Gate gate = gates.remove(id);
            if (gate != null) {
                gate.entered.countDown();
                if (!gate.release.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate of " + id + " was never released");
                }
            }
            if (outage) {
                throw new IllegalStateException("gated outage: backend unreachable");
            }
            if (forGood.contains(id)) {
                throw new dev.projections.NonRetryableRefreshException("gated non-retryable failure of " + id);
            }
            AtomicInteger failuresLeft = failures.get(id);
            if (poisoned.contains(id) || (failuresLeft != null && failuresLeft.getAndDecrement() > 0)) {
                throw new IllegalStateException("gated failure of " + id);
            }
            write(connection, id, value);
        }
    }

    private static String read(Connection connection, String id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT value FROM gated_source WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static void write(Connection connection, String id, String value) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM gated_model WHERE id = ?")) {
            delete.setString(1, id);
            delete.executeUpdate();
        }
        if (value != null) {
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO gated_model (id, value) VALUES (?, ?)")) {
                insert.setString(1, id);
                insert.setString(2, value);
                insert.executeUpdate();
            }
        }
    }
}
