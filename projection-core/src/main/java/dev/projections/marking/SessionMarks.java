package dev.projections.marking;

import dev.projections.MarkKey;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.WeakHashMap;
import org.hibernate.action.spi.AfterTransactionCompletionProcess;
import org.hibernate.action.spi.BeforeTransactionCompletionProcess;
import org.hibernate.engine.spi.SessionImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.EventSource;
import java.util.Collection;

/**
 * The marks one session collects during one transaction, de-duplicated and kept in key order.
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
    private final String tenant;
    private final Set<MarkKey> keys = new TreeSet<>();
    private boolean written;

    private SessionMarks(MarkSink sink, String tenant) {
        this.sink = sink;
        this.tenant = tenant;
    }

    /** The buffer of the session's current transaction, created and registered on first use. */
    static SessionMarks of(EventSource session) {
        synchronized (OPEN) {
            SessionMarks marks = OPEN.get(session);
            if (marks == null) {
                MarkSink sink = lookUpSink();
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
        MarkSink sink = cachedSink;
        if (sink == null) {
            Instance<MarkSink> found = CDI.current().select(MarkSink.class);
            if (!found.isResolvable()) {
                return;
            }
            sink = found.get();
            cachedSink = sink;
        }
        // cheap first: the transaction's resource map answers before the shared map of open buffers is locked
        if (sink.explicitMarksWaiting() && !OPEN.containsKey(session)) {
            of(session);
        }
    }

    /** The sink (an application-scoped CDI proxy), kept once found: this class is the deployment's own. */
    private static volatile MarkSink cachedSink;

    private static boolean isJta(SharedSessionContractImplementor session) {
        return session.getTransactionCoordinator().getTransactionCoordinatorBuilder().isJta();
    }

    /** Looked up once per deployment, not per business transaction: a CDI lookup is not free on the hot path. */
    private static MarkSink lookUpSink() {
        MarkSink cached = cachedSink;
        if (cached != null) {
            return cached;
        }
        Instance<MarkSink> sink = CDI.current().select(MarkSink.class);
        if (!sink.isResolvable()) {
            throw new IllegalStateException("An entity annotated @Projected changed, but no MarkSink bean is "
                    + "deployed: add the projection-ejb module to the EAR");
        }
        cachedSink = sink.get();
        return cachedSink;
    }

    private static String tenantOf(SharedSessionContractImplementor session, MarkSink sink) {
        Object sessionTenant = session.getTenantIdentifierValue();
        if (sessionTenant != null && !sessionTenant.toString().isEmpty()) {
            return sessionTenant.toString();
        }
        String resolved = sink.currentTenant();
        String tenant = resolved == null ? "" : resolved;
        if (tenant.length() > MarkKey.MAX_TENANT_LENGTH) {
            throw new IllegalStateException("tenant \"" + tenant + "\" is over "
                    + MarkKey.MAX_TENANT_LENGTH + " characters");
        }
        return tenant;
    }

    synchronized void add(String projection, String entityId) {
        if (written) {
            throw new IllegalStateException("a change to " + projection + " id " + entityId + " was flushed after this "
                    + "transaction wrote its marks; it would never be refreshed");
        }
        if (entityId.length() > MarkKey.MAX_ID_LENGTH) {
            throw new IllegalStateException("the key of " + projection + " is " + entityId.length()
                    + " characters long, at most " + MarkKey.MAX_ID_LENGTH + " fit a mark: "
                    + entityId.substring(0, 40) + "…");
        }
        keys.add(new MarkKey(projection, tenant, entityId));
    }

    @Override
    public synchronized boolean addAll(Collection<MarkKey> more) {
        if (written) {
            return false;
        }
        keys.addAll(more);
        return true;
    }

    @Override
    public void doBeforeTransactionCompletion(SessionImplementor session) {
        List<MarkKey> sorted;
        synchronized (this) {
            // closed to late joiners first: a markDirty after this point buffers on its own
            written = true;
            sorted = new ArrayList<>(keys);
        }
        if (!sorted.isEmpty()) {
            session.doWork(connection -> sink.write(connection, sorted));
        }
    }

    @Override
    public void doAfterTransactionCompletion(boolean success, SharedSessionContractImplementor session) {
        OPEN.remove(session);
        Set<MarkKey> committed;
        synchronized (this) {
            if (!success || !written || keys.isEmpty()) {
                return;
            }
            committed = Set.copyOf(keys);
        }
        sink.committed(committed);
    }
}
