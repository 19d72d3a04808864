package dev.projections.store;

import dev.projections.FailedRefresh;
import dev.projections.MarkKey;
import dev.projections.ParkedSelection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The statements PostgreSQL, H2 and MariaDB share; a dialect adds its upsert. Kept to SQL that all of them accept
 * (row-value {@code IN}, {@code FOR UPDATE SKIP LOCKED}); what differs (row limits, timestamps) comes from the
 * {@link Dialect}.
 */
abstract class SqlPendingStore implements PendingStore {

    final Dialect dialect;

    SqlPendingStore(Dialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public Dialect dialect() {
        return dialect;
    }

    static final int MAX_ERROR_LENGTH = 500;

    /*
     * Why SKIP LOCKED: the claim is a queue pop run by every worker of every instance at once. With a plain
     * FOR UPDATE, workers line up behind the first one's locks and then find the rows taken; with NOWAIT they
     * fail. SKIP LOCKED lets each take the next free rows, and since it never waits it cannot deadlock with
     * business upserts, whatever order they lock in. Valid leases are excluded by the WHERE clause, so an
     * upsert that commits meanwhile (it never touches claim columns) cannot make a held mark claimable.
     */
    private static final String CLAIM_CANDIDATES = """
            SELECT projection, tenant_id, entity_id, generation, attempts, priority%s
              FROM projection_pending
             WHERE projection IN (%s)%s
               AND available_at <= ?
               AND (claimed_until IS NULL OR claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_control c
                                WHERE c.projection = projection_pending.projection AND c.paused)
             ORDER BY %s%s
            """;

    private static final String LOCK_CLAUSE = "   FOR UPDATE SKIP LOCKED";

    /* H2: locks one candidate row if it is still claimable and nobody holds it */
    private static final String LOCK_CANDIDATE = """
            SELECT generation, attempts, priority FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id = ?
               AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
               FOR UPDATE SKIP LOCKED
            """;

    private static final String SET_CLAIM = """
            UPDATE projection_pending SET claim_token = ?, claimed_until = ?
             WHERE projection = ? AND tenant_id = ? AND entity_id = ?
            """;

    private static final String DELETE_IF_UNCHANGED = """
            DELETE FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND generation = ? AND claim_token = ?
            """;

    /* first_marked_at becomes the claim time: the change that made this ack miss happened after it. */
    private static final String REMARK_AND_RELEASE = """
            UPDATE projection_pending
               SET generation = ?, claim_token = NULL, claimed_until = NULL, attempts = 0, last_error = NULL,
                   first_failed_at = NULL, available_at = ?, first_marked_at = ?
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND claim_token = ?
            """;

    private static final String RECORD_FAILURE = """
            UPDATE projection_pending
               SET attempts = attempts + 1, available_at = ?, last_failed_at = ?, last_error = ?,
                   first_failed_at = COALESCE(first_failed_at, ?), claim_token = NULL, claimed_until = NULL
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND claim_token = ?
            """;

    /* as RECORD_FAILURE, and parked: out of every claim by its available_at, its generation kept to show re-marks */
    private static final String PARK = """
            UPDATE projection_pending
               SET attempts = attempts + 1, available_at = ?, last_failed_at = ?, last_error = ?,
                   first_failed_at = COALESCE(first_failed_at, ?), parked_at = ?, parked_generation = generation,
                   claim_token = NULL, claimed_until = NULL
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND claim_token = ?
            """;

    private static final String COUNT_PARKED =
            "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND parked_at IS NOT NULL";

    private static final String PARKED_MARKS = """
            SELECT tenant_id, entity_id, attempts, last_error, last_failed_at, generation FROM projection_pending
             WHERE projection = ? AND parked_at IS NOT NULL""";

    private static final String RESUME_PARKED = """
            UPDATE projection_pending SET available_at = ?, parked_at = NULL, parked_generation = NULL
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND parked_at IS NOT NULL
            """;

    /* the generation read with the selection: a change committed during the skip keeps its mark */
    private static final String SKIP_PARKED = """
            DELETE FROM projection_pending
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND parked_at IS NOT NULL AND generation = ?
            """;

    /* a failed probe or back-pressure: given back, no attempt counted, due again later */
    private static final String GIVE_BACK_UNTRIED = """
            UPDATE projection_pending SET claim_token = NULL, claimed_until = NULL, available_at = ?
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND claim_token = ?
            """;

    private static final String RELEASE = """
            UPDATE projection_pending SET claim_token = NULL, claimed_until = NULL
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND claim_token = ?
            """;

    private static final String RENEW = """
            UPDATE projection_pending SET claimed_until = ?
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND claim_token = ?
            """;

    private static final String ANY_DUE = """
            SELECT 1 FROM projection_pending
             WHERE projection IN (%s) AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
               AND NOT EXISTS (SELECT 1 FROM projection_control c
                                WHERE c.projection = projection_pending.projection AND c.paused)%s
            """;

    private static final String COUNT_FAILING =
            "SELECT COUNT(*) FROM projection_pending WHERE projection = ? AND attempts > 0";

    private static final String FAILURES = """
            SELECT tenant_id, entity_id, attempts, last_error, last_failed_at, available_at
              FROM projection_pending
             WHERE projection = ? AND attempts > 0
             ORDER BY available_at, tenant_id, entity_id%s
            """;

    private static final String FAILING_KEYS = "SELECT tenant_id, entity_id FROM projection_pending"
            + " WHERE projection = ? AND attempts > 0 AND parked_at IS NULL";

    /* a parked mark retried by its key is resumed */
    private static final String MAKE_DUE = """
            UPDATE projection_pending SET available_at = ?, parked_at = NULL, parked_generation = NULL
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND attempts > 0
            """;

    /* "retry failed": a mark parked since the keys were read stays parked */
    private static final String MAKE_FAILING_DUE = """
            UPDATE projection_pending SET available_at = ?
             WHERE projection = ? AND tenant_id = ? AND entity_id = ? AND attempts > 0 AND parked_at IS NULL
            """;

    private static final String LONGEST_DUE = """
            SELECT first_marked_at FROM projection_pending WHERE projection = ? AND available_at <= ?
             ORDER BY available_at%s
            """;

    private static final String COUNTS = """
            SELECT projection, COUNT(*), SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END),
                   MIN(CASE WHEN available_at <= ? THEN first_marked_at END),
                   SUM(CASE WHEN available_at <= ? THEN 1 ELSE 0 END),
                   SUM(CASE WHEN priority = 1 AND attempts > 0 THEN 1 ELSE 0 END),
                   SUM(CASE WHEN parked_at IS NOT NULL THEN 1 ELSE 0 END)
              FROM projection_pending GROUP BY projection
            """;

    private static final String LAST_ERROR = """
            SELECT last_error FROM projection_pending WHERE projection = ? AND attempts > 0
             ORDER BY last_failed_at DESC%s
            """;

    private static final String PAUSED = "SELECT projection FROM projection_control WHERE paused";

    private static final String SUSPENSIONS = """
            SELECT projection, suspended_reason, paused_by, paused_at FROM projection_control
             WHERE paused AND suspended_reason IS NOT NULL
            """;

    /* one instance per probe interval: whoever moves probed_at first */
    private static final String TAKE_PROBE_TURN = """
            UPDATE projection_control SET probed_at = ?
             WHERE projection = ? AND paused AND suspended_reason IS NOT NULL
               AND (probed_at IS NULL OR probed_at <= ?)
            """;

    /* only a suspension: an operator's pause set meanwhile stays */
    private static final String LIFT_SUSPENSION = """
            UPDATE projection_control SET paused = FALSE, suspended_reason = NULL, probed_at = NULL
             WHERE projection = ? AND paused AND suspended_reason IS NOT NULL
            """;

    /* a suspended projection's due marks, claimable but for the suspension: a handful, for one probe */
    private static final String PROBE_CANDIDATES = """
            SELECT projection, tenant_id, entity_id, generation, attempts, priority FROM projection_pending
             WHERE projection = ? AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
               AND EXISTS (SELECT 1 FROM projection_control c WHERE c.projection = projection_pending.projection
                                                                AND c.paused AND c.suspended_reason IS NOT NULL)
             ORDER BY available_at%s
            """;

    private static final String COUNT_PENDING = "SELECT COUNT(*) FROM projection_pending WHERE projection = ?";

    @Override
    public List<ClaimedMark> claimDue(Connection connection, Collection<String> projections, Instant now,
                                      Duration lease, String token, int limit) throws SQLException {
        if (projections.isEmpty() || limit < 1) {
            return List.of();
        }
        try (PreparedStatement select = prepareClaimDue(connection, projections, now, limit)) {
            return claim(connection, select, now, lease, token);
        }
    }

    /**
     * The query of due, unleased marks of {@code projections} (not paused), live first, oldest first, at most
     * {@code limit}: one {@code projection IN (…)} query here. Its result columns are those of
     * {@link #CLAIM_CANDIDATES}.
     */
    PreparedStatement prepareClaimDue(Connection connection, Collection<String> projections, Instant now, int limit)
            throws SQLException {
        String sql = CLAIM_CANDIDATES.formatted(rowAddress(), placeholders(projections.size()), "",
                "priority, available_at", dialect.firstRows(limit)) + lockClause();
        PreparedStatement select = connection.prepareStatement(sql);
        int i = 1;
        for (String projection : projections) {
            select.setString(i++, projection);
        }
        select.setObject(i++, dialect.timestamp(now));
        select.setObject(i, dialect.timestamp(now));
        return select;
    }

    @Override
    public List<ClaimedMark> claimKeys(Connection connection, Collection<MarkKey> keys, Collection<String> projections,
                                       Instant now, Duration lease, String token) throws SQLException {
        if (keys.isEmpty() || projections.isEmpty()) {
            return List.of();
        }
        String keyFilter = "\n   AND (projection, tenant_id, entity_id) IN (" + String.join(", ",
                java.util.Collections.nCopies(keys.size(), "(?, ?, ?)")) + ")";
        String sql = CLAIM_CANDIDATES.formatted(rowAddress(), placeholders(projections.size()), keyFilter,
                "projection, tenant_id, entity_id", dialect.firstRows(keys.size())) + lockClause();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            for (MarkKey key : keys) {
                select.setString(i++, key.projection());
                select.setString(i++, key.tenantId());
                select.setString(i++, key.entityId());
            }
            select.setObject(i++, dialect.timestamp(now));
            select.setObject(i, dialect.timestamp(now));
            return claim(connection, select, now, lease, token);
        }
    }

    private List<ClaimedMark> claim(Connection connection, PreparedStatement select, Instant now, Duration lease,
                                    String token) throws SQLException {
        Instant leaseUntil = now.plus(lease);
        List<ClaimedMark> claimed = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        try (ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                MarkKey key = new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3));
                claimed.add(new ClaimedMark(key, rows.getString(4), token, now, leaseUntil, rows.getInt(5), rows.getInt(6)));
                if (!rowAddress().isEmpty()) {
                    addresses.add(rows.getString(7));
                }
            }
        }
        if (!addresses.isEmpty()) {
            // the rows are locked by this transaction: their addresses hold until it ends
            setClaimByAddress(connection, addresses, token, leaseUntil);
            return claimed;
        }
        if (!dialect.locksOnlyReturnedRows()) {
            claimed = lockOneByOne(connection, claimed, now);
        }
        if (claimed.isEmpty()) {
            return claimed;
        }
        try (PreparedStatement update = connection.prepareStatement(SET_CLAIM)) {
            for (ClaimedMark mark : sortedByKey(claimed)) {
                update.setString(1, token);
                update.setObject(2, dialect.timestamp(leaseUntil));
                bindKey(update, 3, mark.key());
                update.addBatch();
            }
            update.executeBatch();
        }
        return claimed;
    }

    /**
     * The select-list addition that returns a claimed row's physical address as its 7th column, for a dialect that
     * claims by address ({@link #setClaimByAddress}); empty where rows are claimed by key.
     */
    String rowAddress() {
        return "";
    }

    void setClaimByAddress(Connection connection, List<String> addresses, String token, Instant leaseUntil)
            throws SQLException {
        throw new UnsupportedOperationException("this dialect claims by key");
    }

    /*
     * Where a locking read under a row limit locks more than it returns (H2, Dialect.locksOnlyReturnedRows), a
     * second claimer would find nothing and business upserts would wait for the whole backlog: there the candidates
     * are read without a lock and then locked one by one.
     */
    private String lockClause() {
        return dialect.locksOnlyReturnedRows() ? LOCK_CLAUSE : "";
    }

    /** Locks candidates in key order, keeping those still claimable and free, with their current state. */
    private List<ClaimedMark> lockOneByOne(Connection connection, List<ClaimedMark> candidates, Instant now)
            throws SQLException {
        List<ClaimedMark> locked = new ArrayList<>();
        try (PreparedStatement lock = connection.prepareStatement(LOCK_CANDIDATE)) {
            for (ClaimedMark candidate : sortedByKey(candidates)) {
                int i = bindKey(lock, 1, candidate.key());
                lock.setObject(i++, dialect.timestamp(now));
                lock.setObject(i, dialect.timestamp(now));
                try (ResultSet row = lock.executeQuery()) {
                    if (row.next()) {
                        locked.add(new ClaimedMark(candidate.key(), row.getString(1), candidate.token(),
                                candidate.claimedAt(), candidate.leaseUntil(), row.getInt(2), row.getInt(3)));
                    }
                }
            }
        }
        return locked;
    }

    @Override
    public AckOutcome ack(Connection connection, ClaimedMark mark, Instant now) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_IF_UNCHANGED)) {
            int i = bindKey(delete, 1, mark.key());
            delete.setString(i++, mark.generation());
            delete.setString(i, mark.token());
            if (delete.executeUpdate() == 1) {
                return AckOutcome.SUCCESS;
            }
        }
        return missedAck(connection, mark, now);
    }

    /**
     * The ack of {@code mark} found another generation or another claim: marks it again and releases it while the
     * claim is still mine, or (the claim gone) upserts it LIVE.
     */
    AckOutcome missedAck(Connection connection, ClaimedMark mark, Instant now) throws SQLException {
        try (PreparedStatement remark = connection.prepareStatement(REMARK_AND_RELEASE)) {
            remark.setString(1, Generations.next());
            remark.setObject(2, dialect.timestamp(now));
            remark.setObject(3, dialect.timestamp(mark.claimedAt()));
            int i = bindKey(remark, 4, mark.key());
            remark.setString(i, mark.token());
            if (remark.executeUpdate() == 1) {
                return AckOutcome.REPEATED;
            }
        }
        reMarkLive(connection, mark.key(), now);
        return AckOutcome.REPEATED;
    }

    /**
     * The key's claim is gone (its lease lapsed and another worker took it, or acked it): whatever this worker's
     * refresh wrote may be older than what the newer refresh wrote, and a read model outside this database (an
     * index, a cache) is not rolled back with the transaction. Only a new mark repairs that. It is LIVE: a live
     * change repaired after a stale write must not wait behind a rebuild queue.
     */
    private void reMarkLive(Connection connection, MarkKey key, Instant now) throws SQLException {
        upsert(connection, List.of(key), LIVE, now);
    }

    @Override
    public boolean recordFailure(Connection connection, ClaimedMark mark, String error, Instant now, Instant retryAt)
            throws SQLException {
        return updateWhileClaimed(connection, RECORD_FAILURE, mark, now, dialect.timestamp(retryAt), dialect.timestamp(now), truncate(error),
                dialect.timestamp(now));
    }

    @Override
    public boolean park(Connection connection, ClaimedMark mark, String error, Instant now) throws SQLException {
        return updateWhileClaimed(connection, PARK, mark, now, dialect.timestamp(PARKED_UNTIL), dialect.timestamp(now), truncate(error), dialect.timestamp(now),
                dialect.timestamp(now));
    }

    /**
     * Runs {@code sql} — {@code values}, then the key and the claim token — on a mark while the claim is still
     * mine; when it is not, the key is marked again at LIVE priority (the attempt may have written a read model after
     * a newer refresh did) and the answer is false.
     */
    private boolean updateWhileClaimed(Connection connection, String sql, ClaimedMark mark, Instant now,
                                       Object... values) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql)) {
            int i = 1;
            for (Object value : values) {
                update.setObject(i++, value);
            }
            i = bindKey(update, i, mark.key());
            update.setString(i, mark.token());
            if (update.executeUpdate() == 1) {
                return true;
            }
        }
        reMarkLive(connection, mark.key(), now);
        return false;
    }

    @Override
    public long parked(Connection connection, String projection) throws SQLException {
        return countOf(connection, COUNT_PARKED, projection);
    }

    @Override
    public int resumeParked(Connection connection, ParkedSelection selection, Instant now) throws SQLException {
        int resumed = 0;
        try (PreparedStatement update = connection.prepareStatement(RESUME_PARKED)) {
            for (Parked mark : parkedMarks(connection, selection)) {
                update.setObject(1, dialect.timestamp(now));
                bindKey(update, 2, new MarkKey(selection.projection(), mark.failure().tenant(), mark.failure().id()));
                resumed += update.executeUpdate();
            }
        }
        return resumed;
    }

    @Override
    public List<FailedRefresh> skipParked(Connection connection, ParkedSelection selection) throws SQLException {
        List<FailedRefresh> skipped = new ArrayList<>();
        try (PreparedStatement delete = connection.prepareStatement(SKIP_PARKED)) {
            for (Parked mark : parkedMarks(connection, selection)) {
                int i = bindKey(delete, 1, new MarkKey(selection.projection(), mark.failure().tenant(), mark.failure().id()));
                delete.setString(i, mark.generation());
                if (delete.executeUpdate() == 1) {
                    skipped.add(mark.failure());
                }
            }
        }
        return skipped;
    }

    /**
     * The selected parked marks in the engine's key order: the statements that follow change them one at a time in
     * that order, as every statement locking several pending rows must (docs/contract.md §3).
     */
    private record Parked(FailedRefresh failure, String generation) {
    }

    private List<Parked> parkedMarks(Connection connection, ParkedSelection selection)
            throws SQLException {
        StringBuilder sql = new StringBuilder(PARKED_MARKS);
        List<String> parameters = new ArrayList<>(List.of(selection.projection()));
        if (selection.tenant() != null) {
            sql.append(" AND tenant_id = ?");
            parameters.add(selection.tenant());
        }
        if (selection.entityId() != null) {
            sql.append(" AND entity_id = ?");
            parameters.add(selection.entityId());
        }
        if (selection.errorPrefix() != null) {
            sql.append(" AND last_error LIKE ? ESCAPE '!'");
            parameters.add(LikePattern.startingWith(selection.errorPrefix()));
        }
        List<Parked> marks = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setString(i + 1, parameters.get(i));
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    marks.add(new Parked(new FailedRefresh(rows.getString(1), rows.getString(2), rows.getInt(3),
                            rows.getString(4), dialect.instant(rows, 5), null), rows.getString(6)));
                }
            }
        }
        marks.sort(Comparator.comparing((Parked m) -> new MarkKey(selection.projection(), m.failure().tenant(),
                m.failure().id())));
        return marks;
    }

    @Override
    public int release(Connection connection, List<ClaimedMark> marks) throws SQLException {
        int released = 0;
        try (PreparedStatement update = connection.prepareStatement(RELEASE)) {
            for (ClaimedMark mark : sortedByKey(marks)) {
                int i = bindKey(update, 1, mark.key());
                update.setString(i, mark.token());
                update.addBatch();
            }
            for (int count : update.executeBatch()) {
                released += Math.max(count, 0);
            }
        }
        return released;
    }

    /*
     * One key at a time in key order, each released or (its claim gone) marked again before the next: a re-mark
     * after a batch of releases would lock keys out of key order (docs/contract.md §3 lock order).
     */
    @Override
    public int abandon(Connection connection, List<ClaimedMark> marks, Instant now) throws SQLException {
        int released = 0;
        try (PreparedStatement update = connection.prepareStatement(RELEASE)) {
            for (ClaimedMark mark : sortedByKey(marks)) {
                int i = bindKey(update, 1, mark.key());
                update.setString(i, mark.token());
                if (update.executeUpdate() == 1) {
                    released++;
                } else {
                    reMarkLive(connection, mark.key(), now);
                }
            }
        }
        return released;
    }

    @Override
    public int releaseToken(Connection connection, String token, List<MarkKey> keys) throws SQLException {
        List<MarkKey> sorted = new ArrayList<>(keys);
        sorted.sort(null);
        int released = 0;
        try (PreparedStatement update = connection.prepareStatement(RELEASE)) {
            for (MarkKey key : sorted) {
                int i = bindKey(update, 1, key);
                update.setString(i, token);
                released += update.executeUpdate();
            }
        }
        return released;
    }

    @Override
    public List<ClaimedMark> renew(Connection connection, List<ClaimedMark> marks, Instant now, Duration lease)
            throws SQLException {
        Instant leaseUntil = now.plus(lease);
        List<ClaimedMark> renewed = new ArrayList<>();
        try (PreparedStatement update = connection.prepareStatement(RENEW)) {
            for (ClaimedMark mark : sortedByKey(marks)) {
                update.setObject(1, dialect.timestamp(leaseUntil));
                int i = bindKey(update, 2, mark.key());
                update.setString(i, mark.token());
                if (update.executeUpdate() == 1) {
                    renewed.add(new ClaimedMark(mark.key(), mark.generation(), mark.token(), mark.claimedAt(),
                            leaseUntil, mark.attempts(), mark.priority()));
                } else {
                    reMarkLive(connection, mark.key(), now);
                }
            }
        }
        return renewed;
    }

    @Override
    public boolean hasDue(Connection connection, Collection<String> projections, Instant now) throws SQLException {
        if (projections.isEmpty()) {
            return false;
        }
        try (PreparedStatement select = connection.prepareStatement(anyDueSql(projections.size()))) {
            int i = 1;
            for (String projection : projections) {
                select.setString(i++, projection);
            }
            select.setObject(i++, dialect.timestamp(now));
            select.setObject(i, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** The dialect's upsert of a {@code projection_instance} row: instance, projection, last seen. */
    abstract String heartbeatSql();

    /** The dialect's upsert of a {@code projection_control} row: projection, paused, by, at. */
    abstract String setPausedSql();

    @Override
    public void heartbeat(Connection connection, String instanceId, Collection<String> projections, Instant now)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(heartbeatSql())) {
            for (String projection : new java.util.TreeSet<>(projections)) {
                statement.setString(1, instanceId);
                statement.setString(2, projection);
                statement.setObject(3, dialect.timestamp(now));
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }

    @Override
    public void setPaused(Connection connection, String projection, boolean paused, String user, Instant now)
            throws SQLException {
        writeControl(connection, projection, paused, user, now, null);
    }

    @Override
    public void suspend(Connection connection, String projection, String reason, String user, Instant now)
            throws SQLException {
        writeControl(connection, projection, true, user, now, truncate(reason, 1000));
    }

    private void writeControl(Connection connection, String projection, boolean paused, String user, Instant now,
                              String suspendedReason) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(setPausedSql())) {
            statement.setString(1, projection);
            statement.setBoolean(2, paused);
            statement.setString(3, user);
            statement.setObject(4, dialect.timestamp(now));
            statement.setString(5, suspendedReason);
            statement.executeUpdate();
        }
    }

    /**
     * {@link #suspendIfRunning} in one statement, {@code sql}: an upsert of the projection's control row as suspended
     * (projection, by, at, reason) that leaves a paused row alone and counts 1 only when it suspended.
     */
    static boolean suspendIfRunning(Connection connection, String sql, Dialect dialect, String projection, String reason,
                                    String user, Instant now) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, projection);
            statement.setString(2, user);
            statement.setObject(3, dialect.timestamp(now));
            statement.setString(4, truncate(reason, 1000));
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public boolean giveBackUntried(Connection connection, ClaimedMark mark, Instant now, Instant until)
            throws SQLException {
        return updateWhileClaimed(connection, GIVE_BACK_UNTRIED, mark, now, dialect.timestamp(until));
    }

    @Override
    public java.util.Map<String, Suspension> suspensions(Connection connection) throws SQLException {
        java.util.Map<String, Suspension> suspended = new java.util.TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(SUSPENSIONS);
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                suspended.put(rows.getString(1), new Suspension(rows.getString(2), rows.getString(3),
                        dialect.instant(rows, 4)));
            }
        }
        return suspended;
    }

    @Override
    public boolean takeProbeTurn(Connection connection, String projection, Instant now, Duration interval)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(TAKE_PROBE_TURN)) {
            update.setObject(1, dialect.timestamp(now));
            update.setString(2, projection);
            update.setObject(3, dialect.timestamp(now.minus(interval)));
            return update.executeUpdate() == 1;
        }
    }

    @Override
    public boolean liftSuspension(Connection connection, String projection) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(LIFT_SUSPENSION)) {
            update.setString(1, projection);
            return update.executeUpdate() == 1;
        }
    }

    @Override
    public ClaimedMark claimProbe(Connection connection, String projection, Instant now, Duration lease, String token)
            throws SQLException {
        List<ClaimedMark> candidates = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(PROBE_CANDIDATES.formatted(dialect.firstRows(5)))) {
            select.setString(1, projection);
            select.setObject(2, dialect.timestamp(now));
            select.setObject(3, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    candidates.add(new ClaimedMark(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)),
                            rows.getString(4), token, now, now.plus(lease), rows.getInt(5), rows.getInt(6)));
                }
            }
        }
        // read without a lock, then tried one at a time in due order (a deferred probe's mark comes last): the
        // first still free is the probe, whatever the database
        ClaimedMark probe = null;
        for (ClaimedMark candidate : candidates) {
            List<ClaimedMark> locked = lockOneByOne(connection, List.of(candidate), now);
            if (!locked.isEmpty()) {
                probe = locked.get(0);
                break;
            }
        }
        if (probe == null) {
            return null;
        }
        try (PreparedStatement update = connection.prepareStatement(SET_CLAIM)) {
            update.setString(1, token);
            update.setObject(2, dialect.timestamp(probe.leaseUntil()));
            bindKey(update, 3, probe.key());
            update.executeUpdate();
        }
        return probe;
    }

    @Override
    public Instant databaseTime(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(dialect.currentTimeQuery());
             ResultSet rows = select.executeQuery()) {
            rows.next();
            return dialect.instant(rows, 1);
        }
    }

    /** The due check for {@code projections} projections (public to the plan tests). */
    String anyDueSql(int projections) {
        return ANY_DUE.formatted(placeholders(projections), dialect.firstRows(1));
    }

    /** The read of a projection's longest-due mark (public to the plan tests). */
    String longestDueSql() {
        return LONGEST_DUE.formatted(dialect.firstRows(1));
    }

    @Override
    public long failing(Connection connection, String projection) throws SQLException {
        return countOf(connection, COUNT_FAILING, projection);
    }

    @Override
    public List<dev.projections.FailedRefresh> failures(Connection connection, String projection, int limit)
            throws SQLException {
        List<dev.projections.FailedRefresh> failures = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                FAILURES.formatted(dialect.firstRows(Math.max(1, limit))))) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    failures.add(new dev.projections.FailedRefresh(rows.getString(1), rows.getString(2), rows.getInt(3),
                            rows.getString(4), dialect.instant(rows, 5), dialect.instant(rows, 6)));
                }
            }
        }
        return failures;
    }

    @Override
    public int retryFailed(Connection connection, String projection, Instant now) throws SQLException {
        // one row at a time in the engine's key order (not the database's collation), as every statement that
        // locks several pending rows must (docs/contract.md §3)
        List<MarkKey> keys = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(FAILING_KEYS)) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    keys.add(new MarkKey(projection, rows.getString(1), rows.getString(2)));
                }
            }
        }
        keys.sort(null);
        int retried = 0;
        try (PreparedStatement update = connection.prepareStatement(MAKE_FAILING_DUE)) {
            for (MarkKey key : keys) {
                update.setObject(1, dialect.timestamp(now));
                bindKey(update, 2, key);
                retried += update.executeUpdate();
            }
        }
        return retried;
    }

    @Override
    public boolean retry(Connection connection, MarkKey key, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(MAKE_DUE)) {
            update.setObject(1, dialect.timestamp(now));
            bindKey(update, 2, key);
            return update.executeUpdate() == 1;
        }
    }

    @Override
    public Instant oldestDue(Connection connection, Collection<String> projections, Instant now) throws SQLException {
        Instant oldest = null;
        try (PreparedStatement select = connection.prepareStatement(longestDueSql())) {
            for (String projection : projections) {
                select.setString(1, projection);
                select.setObject(2, dialect.timestamp(now));
                try (ResultSet rows = select.executeQuery()) {
                    Instant first = rows.next() ? dialect.instant(rows, 1) : null;
                    if (first != null && (oldest == null || first.isBefore(oldest))) {
                        oldest = first;
                    }
                }
            }
        }
        return oldest;
    }

    @Override
    public java.util.Map<String, ProjectionCounts> countsByProjection(Connection connection, Instant now)
            throws SQLException {
        java.util.Map<String, ProjectionCounts> counts = new java.util.HashMap<>();
        try (PreparedStatement select = connection.prepareStatement(COUNTS)) {
            select.setObject(1, dialect.timestamp(now));
            select.setObject(2, dialect.timestamp(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    Instant oldest = dialect.instant(rows, 4);
                    counts.put(rows.getString(1), new ProjectionCounts(rows.getLong(2), rows.getLong(3),
                            oldest == null ? Duration.ZERO : Duration.between(oldest, now), rows.getLong(5),
                            rows.getLong(6), rows.getLong(7)));
                }
            }
        }
        return counts;
    }

    @Override
    public String lastError(Connection connection, String projection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(LAST_ERROR.formatted(dialect.firstRows(1)))) {
            select.setString(1, projection);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    @Override
    public java.util.Set<String> paused(Connection connection) throws SQLException {
        java.util.Set<String> paused = new java.util.TreeSet<>();
        try (PreparedStatement select = connection.prepareStatement(PAUSED); ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                paused.add(rows.getString(1));
            }
        }
        return paused;
    }

    @Override
    public long pending(Connection connection, String projection) throws SQLException {
        return countOf(connection, COUNT_PENDING, projection);
    }

    /** The single count {@code sql} gives for {@code projection}. */
    private static long countOf(Connection connection, String sql, String projection) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(sql)) {
            count.setString(1, projection);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    static int bindKey(PreparedStatement statement, int index, MarkKey key) throws SQLException {
        statement.setString(index, key.projection());
        statement.setString(index + 1, key.tenantId());
        statement.setString(index + 2, key.entityId());
        return index + 3;
    }

    private static List<ClaimedMark> sortedByKey(List<ClaimedMark> marks) {
        List<ClaimedMark> sorted = new ArrayList<>(marks);
        sorted.sort(Comparator.comparing(ClaimedMark::key));
        return sorted;
    }

    private static String placeholders(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
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
