package dev.projections.hibernate;

import dev.projections.marking.MarkBuffer;
import dev.projections.marking.MarkSink;
import dev.projections.marking.MarkSinks;
import dev.projections.marking.TransactionMarks;
import dev.projections.MarkKey;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.hibernate.action.spi.AfterTransactionCompletionProcess;
import org.hibernate.action.spi.BeforeTransactionCompletionProcess;
import org.hibernate.engine.spi.SessionImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.EventSource;
import java.util.Collection;

/**
 * The marks one Hibernate session collects during one transaction, in a {@link TransactionMarks}.
 * <p>
 * They are written once, at commit, by a before-completion process of Hibernate's action queue, which runs
 * after Hibernate's final flush, through the session's own connection: one statement in the business
 * transaction, holding the pending rows' locks for milliseconds rather than for the whole transaction.
 * After a successful commit the committed keys go to the {@link MarkSink}; on any completion (commit,
 * rollback, or a timeout completed on the reaper thread) the buffer is dropped.
 */
final class SessionMarks implements BeforeTransactionCompletionProcess, AfterTransactionCompletionProcess, MarkBuffer {

    /** Weak keys: a session closed without a completion callback must not leak its buffer. */
    private static final Map<SharedSessionContractImplementor, SessionMarks> OPEN =
            Collections.synchronizedMap(new WeakHashMap<>());

    private final MarkSink sink;
    private final TransactionMarks marks;

    private SessionMarks(MarkSink sink, String tenant) {
        this.sink = sink;
        this.marks = new TransactionMarks(tenant);
    }

    /** The buffer of the session's current transaction, created and registered on first use. */
    static SessionMarks of(EventSource session) {
        synchronized (OPEN) {
            SessionMarks marks = OPEN.get(session);
            if (marks == null) {
                MarkSink sink = MarkSinks.require();
                marks = new SessionMarks(sink, tenantOf(session, sink));
                if (isJta(session)) {
                    // only a session in the JTA transaction takes over that transaction's explicit marks; a
                    // resource-local session's marks are written with its own transaction
                    marks.addAll(sink.sessionBufferOpened(marks));
                }
                OPEN.put(session, marks);
                session.getActionQueue().registerProcess((BeforeTransactionCompletionProcess) marks);
                session.getActionQueue().registerProcess((AfterTransactionCompletionProcess) marks);
            }
            return marks;
        }
    }

    /**
     * Opens the session's buffer now if {@code markDirty} buffered marks earlier in its transaction, so they are
     * written with the session's own ({@link SessionJoinListener}). Quiet when no sink is deployed: the first
     * change then reports it.
     */
    static void openIfExplicitMarksWait(EventSource session) {
        if (!session.isTransactionInProgress() || !isJta(session)) {
            return;
        }
        MarkSink sink = MarkSinks.deployed();
        // cheap first: the transaction's resource map answers before the shared map of open buffers is locked
        if (sink != null && sink.explicitMarksWaiting() && !OPEN.containsKey(session)) {
            of(session);
        }
    }

    private static boolean isJta(SharedSessionContractImplementor session) {
        return session.getTransactionCoordinator().getTransactionCoordinatorBuilder().isJta();
    }

    private static String tenantOf(SharedSessionContractImplementor session, MarkSink sink) {
        Object sessionTenant = session.getTenantIdentifierValue();
        if (sessionTenant != null && !sessionTenant.toString().isEmpty()) {
            return sessionTenant.toString();
        }
        return sink.currentTenant();
    }

    void add(String projection, String entityId) {
        marks.add(projection, entityId);
    }

    @Override
    public boolean addAll(Collection<MarkKey> more) {
        return marks.addAll(more);
    }

    @Override
    public void doBeforeTransactionCompletion(SessionImplementor session) {
        List<MarkKey> sorted = marks.closeForWrite();
        if (!sorted.isEmpty()) {
            session.doWork(connection -> sink.write(connection, sorted));
        }
    }

    @Override
    public void doAfterTransactionCompletion(boolean success, SharedSessionContractImplementor session) {
        OPEN.remove(session);
        Set<MarkKey> committed = marks.written();
        if (success && !committed.isEmpty()) {
            sink.committed(committed);
        }
    }
}
