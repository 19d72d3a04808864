package dev.projections.store;

import dev.projections.MarkKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import javax.sql.DataSource;

/**
 * Every SQL statement of the pending table (docs/contract.md §4), one implementation per dialect. Each method runs on
 * the caller's connection, in the caller's transaction. Instants are parameters taken from the engine's
 * clock (never {@code now()} in SQL), so tests control time. Statements that lock several rows take them in
 * key order.
 */
public interface PendingStore {

    int LIVE = 0;
    int REBUILD = 1;

    /**
     * The upsert rule of docs/contract.md §3, for keys sorted in key order: a new key is inserted due now; an existing key
     * gets a new generation, {@code mark_count + 1}, the lower priority, and becomes due now unless it is
     * backing off. Claim columns and {@code first_marked_at} are never touched.
     */
    void upsert(Connection connection, List<MarkKey> sortedKeys, int priority, Instant now) throws SQLException;

    /**
     * Claims up to {@code limit} due marks of {@code projections} without a valid lease, live before rebuild,
     * oldest first, skipping rows other transactions hold locked.
     */
    List<ClaimedMark> claimDue(Connection connection, Collection<String> projections, Instant now, Duration lease,
                               String token, int limit) throws SQLException;

    /** Claims those of {@code keys} that are due, unleased and of {@code projections}. */
    List<ClaimedMark> claimKeys(Connection connection, Collection<MarkKey> keys, Collection<String> projections,
                                Instant now, Duration lease, String token) throws SQLException;

    /**
     * The ack, last statement of the refresh transaction: deletes the mark if its generation and token are
     * the claimed ones; otherwise re-marks and releases it if the token is still mine, or upserts it at LIVE
     * priority.
     */
    AckOutcome ack(Connection connection, ClaimedMark mark, Instant now) throws SQLException;

    /**
     * The acks of one refresh transaction's marks, given in key order, with an outcome each in that order: the same
     * rules as {@link #ack}, locking the marks' rows in key order. A dialect may do it in fewer statements than one
     * per mark.
     */
    default List<AckOutcome> ackAll(Connection connection, List<ClaimedMark> sortedMarks, Instant now)
            throws SQLException {
        List<AckOutcome> outcomes = new java.util.ArrayList<>(sortedMarks.size());
        for (ClaimedMark mark : sortedMarks) {
            outcomes.add(ack(connection, mark, now));
        }
        return outcomes;
    }

    /**
     * Records a failure and releases the claim, due again at {@code retryAt}, only while the claim is still mine;
     * false when it was not, and then the key is marked again at LIVE priority (its refresh may have written a
     * read model after a newer refresh did).
     */
    boolean recordFailure(Connection connection, ClaimedMark mark, String error, Instant now, Instant retryAt)
            throws SQLException;

    /**
     * The {@code available_at} of a parked mark: past any clock, so the claim, due and oldest-due queries leave it
     * out by the predicate they already have, on the indexes they already use (docs/design.md D26).
     */
    Instant PARKED_UNTIL = Instant.parse("9999-12-31T00:00:00Z");

    /**
     * Records a failure as {@link #recordFailure} does and parks the mark: never claimed again until resumed.
     * False, and the key marked again LIVE, when the claim was no longer mine.
     */
    boolean park(Connection connection, ClaimedMark mark, String error, Instant now) throws SQLException;

    /** Parked marks of {@code projection}. */
    long parked(Connection connection, String projection) throws SQLException;

    /** Makes the selected parked marks due at {@code now}, keeping attempts, one at a time in key order. */
    int resumeParked(Connection connection, dev.projections.ParkedSelection selection, Instant now) throws SQLException;

    /** Deletes the selected parked marks, one at a time in key order; returns them as they were (for the audit). */
    List<dev.projections.FailedRefresh> skipParked(Connection connection, dev.projections.ParkedSelection selection)
            throws SQLException;

    /**
     * Releases claims that were never started, by token, in key order; a key whose claim is no longer mine is left
     * alone (nothing was written for it). Returns how many were released.
     */
    int release(Connection connection, List<ClaimedMark> marks) throws SQLException;

    /**
     * Releases claims whose refresh was attempted and not finished (its batch failed), one key at a time in key
     * order; a key whose claim is no longer mine is marked again at LIVE priority instead (the attempt may have
     * written a read model after a newer refresh did). Returns how many were released.
     */
    int abandon(Connection connection, List<ClaimedMark> marks, Instant now) throws SQLException;

    /**
     * Releases those of {@code keys} still claimed under {@code token}, by primary key in key order, and nothing
     * else; for a claim whose commit may have happened although the claimer saw it fail. Returns how many.
     */
    int releaseToken(Connection connection, String token, List<MarkKey> keys) throws SQLException;

    /**
     * Gives claims that are still mine a fresh lease until {@code now + lease}, for marks a worker keeps after its
     * batch used up their lease; returns them with their new lease. A key whose claim is gone is marked again at
     * LIVE priority and left out.
     */
    List<ClaimedMark> renew(Connection connection, List<ClaimedMark> marks, Instant now, Duration lease)
            throws SQLException;

    /** Whether any mark of {@code projections} is due and unleased at {@code now}. */
    boolean hasDue(Connection connection, Collection<String> projections, Instant now) throws SQLException;

    /** Records that {@code instanceId} deploys {@code projections} at {@code now} ({@code projection_instance}). */
    void heartbeat(Connection connection, String instanceId, Collection<String> projections, Instant now)
            throws SQLException;

    /** The database's own clock, to compare with the engine's. */
    Instant databaseTime(Connection connection) throws SQLException;

    /**
     * Lets the current transaction commit without waiting for its log to reach the disk, where the database allows
     * it. Only for claims: a claim lost in a database crash leaves its marks unclaimed, which is where they were, and
     * the refresh transaction that follows a claim commits durably, flushing the claim's log with its own.
     */
    default void commitWithoutWaitingForDisk(Connection connection) throws SQLException {
    }

    /** Marks of {@code projection} with {@code attempts > 0}. */
    long failing(Connection connection, String projection) throws SQLException;

    /** Failing marks of {@code projection}, next retry first. */
    List<dev.projections.FailedRefresh> failures(Connection connection, String projection, int limit)
            throws SQLException;

    /** Makes failing marks due at {@code now}, keeping attempts; all of {@code projection}, locked in key order. */
    int retryFailed(Connection connection, String projection, Instant now) throws SQLException;

    /** The same for one key; false when it has no failing mark. */
    boolean retry(Connection connection, MarkKey key, Instant now) throws SQLException;

    /** Projections paused on every instance ({@code projection_control}). */
    java.util.Set<String> paused(Connection connection) throws SQLException;

    /**
     * Pauses or resumes {@code projection} for every instance; {@code user} is recorded. Either ends a suspension:
     * an operator's pause is never probed, a resume lifts it.
     */
    void setPaused(Connection connection, String projection, boolean paused, String user, Instant now)
            throws SQLException;

    /**
     * Suspends {@code projection} for every instance (docs/contract.md §6): paused, as every claim query reads it, with
     * the reason that makes it a suspension — probed, and lifted by the first probe that succeeds.
     */
    void suspend(Connection connection, String projection, String reason, String user, Instant now)
            throws SQLException;

    /**
     * The engine's suspension: as {@link #suspend}, but only when {@code projection} is not paused (an operator's
     * pause is never turned into one, whatever commits in between); true when it suspended it.
     */
    boolean suspendIfRunning(Connection connection, String projection, String reason, String user, Instant now)
            throws SQLException;

    /**
     * Gives back a claim without counting an attempt, due again at {@code until}: a failed probe's (so the next probe
     * tries another mark first), or one whose refresh met back-pressure rather than a fault; false, and the key
     * marked again LIVE, when the claim was no longer mine.
     */
    boolean giveBackUntried(Connection connection, ClaimedMark mark, Instant now, Instant until) throws SQLException;

    /** A suspension: why, by whom ("system" when the engine tripped it), since when. */
    record Suspension(String reason, String by, Instant since) {
    }

    /** The suspended projections (not those an operator paused). */
    java.util.Map<String, Suspension> suspensions(Connection connection) throws SQLException;

    /** Takes the probe's turn of suspended {@code projection}: true for one instance per {@code interval}. */
    boolean takeProbeTurn(Connection connection, String projection, Instant now, Duration interval) throws SQLException;

    /** Lifts the suspension of {@code projection}; false when it is no longer suspended (or an operator paused it). */
    boolean liftSuspension(Connection connection, String projection) throws SQLException;

    /**
     * Claims one due mark of suspended {@code projection} for a probe, the suspension notwithstanding; {@code null}
     * when none is due and free.
     */
    ClaimedMark claimProbe(Connection connection, String projection, Instant now, Duration lease, String token)
            throws SQLException;

    /**
     * {@code first_marked_at} of the mark of {@code projections} that has been due the longest at {@code now}, or
     * {@code null}: per projection the first due mark in {@code available_at} order (an index read, whatever the
     * backlog), then the oldest of those.
     */
    Instant oldestDue(Connection connection, Collection<String> projections, Instant now) throws SQLException;

    /** Per projection: marks waiting, failing, the age of the oldest due one, due now, failing rebuild marks, parked. */
    record ProjectionCounts(long pending, long failing, java.time.Duration oldestDueAge, long dueNow,
                            long rebuildFailing, long parked) {
    }

    /** The most recent error of {@code projection}'s failing marks, or {@code null}. */
    String lastError(Connection connection, String projection) throws SQLException;

    /** One grouped query for every projection's gauges. */
    java.util.Map<String, ProjectionCounts> countsByProjection(Connection connection, Instant now) throws SQLException;

    /** Marks waiting for {@code projection}, all tenants, including those backing off. */
    long pending(Connection connection, String projection) throws SQLException;

    /** The store for the database behind {@code dataSource}, chosen from its JDBC metadata. */
    static PendingStore forDatabase(DataSource dataSource) {
        String product;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the projection datasource to detect its database", e);
        }
        return forProduct(product);
    }

    /** The store for a JDBC driver's database product name: PostgreSQL, H2, MariaDB or MySQL. */
    static PendingStore forProduct(String databaseProductName) {
        return switch (Dialect.of(databaseProductName)) {
            case POSTGRESQL -> new PostgresPendingStore();
            case H2 -> new H2PendingStore();
            case MARIADB -> new MariaDbPendingStore();
        };
    }

    /** This store's dialect. */
    Dialect dialect();
}
