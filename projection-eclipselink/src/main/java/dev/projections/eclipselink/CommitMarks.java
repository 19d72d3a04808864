package dev.projections.eclipselink;

import dev.projections.MarkKey;
import dev.projections.marking.MarkSink;
import dev.projections.marking.MarkSinks;
import dev.projections.marking.TransactionMarks;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.WeakHashMap;
import org.eclipse.persistence.config.PersistenceUnitProperties;
import org.eclipse.persistence.internal.databaseaccess.Accessor;
import org.eclipse.persistence.internal.sessions.AbstractSession;
import org.eclipse.persistence.internal.sessions.UnitOfWorkImpl;
import org.eclipse.persistence.sessions.SessionEvent;
import org.eclipse.persistence.sessions.SessionEventAdapter;

/**
 * Writes a transaction's marks at commit and hands them to the drainers after it, from EclipseLink's session events.
 * <p>
 * Each persistence context works through a client session of its own, so the marks are kept per client session. They
 * are written in {@code preCommitTransaction}, which EclipseLink raises once its unit of work has written every change
 * and before the transaction commits — in JTA from its before-completion synchronization, with the transaction still
 * open — as one key-ordered statement on the client session's own connection. The committed keys go to the drainers in
 * {@code postCommitTransaction} when EclipseLink commits the database transaction itself (resource-local), in
 * {@code postCommitUnitOfWork} after a JTA transaction committed. A rollback, a release, or the start of a new
 * transaction on the same client session drops what was not handed over: nothing is marked or refreshed for a
 * transaction that did not commit.
 */
final class CommitMarks extends SessionEventAdapter {

    /** Weak keys: a client session dropped without a completion event must not leak its buffer. */
    private static final Map<AbstractSession, Open> OPEN = Collections.synchronizedMap(new WeakHashMap<>());

    private record Open(MarkSink sink, TransactionMarks marks) {
    }

    /** The buffer of the current transaction of the persistence context {@code session} belongs to. */
    static TransactionMarks of(AbstractSession session) {
        AbstractSession client = clientOf(session);
        synchronized (OPEN) {
            Open open = OPEN.get(client);
            if (open == null) {
                MarkSink sink = MarkSinks.require();
                TransactionMarks marks = new TransactionMarks(tenantOf(client, sink));
                if (isJta(client)) {
                    // only a persistence context in the JTA transaction takes over that transaction's explicit marks; a
                    // resource-local one's marks are written with its own transaction
                    marks.addAll(sink.sessionBufferOpened(marks));
                }
                open = new Open(sink, marks);
                OPEN.put(client, open);
            }
            return open.marks();
        }
    }

    /** Opens the buffer now when {@code markDirty} buffered marks earlier in this JTA transaction (docs/contract.md §3). */
    static void openIfExplicitMarksWait(AbstractSession session) {
        if (session == null || !session.isUnitOfWork()) {
            return;
        }
        // the transaction's resource map first: without explicit marks waiting nothing else is asked of the session
        MarkSink sink = MarkSinks.deployed();
        if (sink != null && sink.explicitMarksWaiting()) {
            AbstractSession client = clientOf(session);
            if (isJta(client) && !OPEN.containsKey(client)) {
                of(session);
            }
        }
    }

    /**
     * A unit of work that writes nothing begins no database transaction, and then its client session raises no
     * {@code preCommitTransaction}: marks it took over from {@code markDirty} would be lost with the commit. So a
     * buffer that holds marks begins the transaction now, before the unit of work's commit, which then commits it.
     */
    @Override
    public void preCommitUnitOfWork(SessionEvent event) {
        if (!(event.getSession() instanceof UnitOfWorkImpl uow) || uow.isNestedUnitOfWork()) {
            return;
        }
        AbstractSession client = clientOf(uow);
        Open open = OPEN.get(client);
        if (open != null && open.marks().holdsAny() && !client.isInTransaction()) {
            uow.beginEarlyTransaction();
        }
    }

    @Override
    public void preCommitTransaction(SessionEvent event) {
        AbstractSession client = (AbstractSession) event.getSession();
        Open open = OPEN.get(client);
        if (open == null) {
            return;
        }
        List<MarkKey> sorted = open.marks().closeForWrite();
        if (sorted.isEmpty()) {
            return;
        }
        // an accessor of an external pool connects at its first call: count this write as one, so the connection is there
        Accessor accessor = client.getAccessor();
        accessor.incrementCallCount(client);
        try {
            open.sink().write(accessor.getConnection(), sorted);
        } catch (SQLException e) {
            // fails the commit: a transaction whose marks could not be written must not commit its changes unmarked
            throw new IllegalStateException("could not write the marks of this transaction: " + e.getMessage(), e);
        } finally {
            accessor.decrementCallCount();
        }
    }

    @Override
    public void postCommitTransaction(SessionEvent event) {
        AbstractSession client = (AbstractSession) event.getSession();
        if (!isJta(client)) {
            handOver(client);
        }
    }

    @Override
    public void postCommitUnitOfWork(SessionEvent event) {
        if (event.getSession() instanceof UnitOfWorkImpl uow && uow.isNestedUnitOfWork()) {
            return; // a nested unit of work commits into its parent, not to the database
        }
        AbstractSession client = clientOf((AbstractSession) event.getSession());
        if (isJta(client)) {
            handOver(client);
        }
    }

    @Override
    public void postBeginTransaction(SessionEvent event) {
        // a buffer already written belongs to a transaction that ended without a completion event reaching us
        AbstractSession client = (AbstractSession) event.getSession();
        Open open = OPEN.get(client);
        if (open != null && !open.marks().written().isEmpty()) {
            OPEN.remove(client, open);
        }
    }

    @Override
    public void postRollbackTransaction(SessionEvent event) {
        OPEN.remove((AbstractSession) event.getSession());
    }

    @Override
    public void postReleaseUnitOfWork(SessionEvent event) {
        if (event.getSession() instanceof UnitOfWorkImpl uow && uow.isNestedUnitOfWork()) {
            return;
        }
        OPEN.remove(clientOf((AbstractSession) event.getSession()));
    }

    @Override
    public void postReleaseClientSession(SessionEvent event) {
        OPEN.remove((AbstractSession) event.getSession());
    }

    private static void handOver(AbstractSession client) {
        Open open = OPEN.remove(client);
        if (open == null) {
            return;
        }
        Set<MarkKey> committed = open.marks().written();
        if (!committed.isEmpty()) {
            open.sink().committed(committed);
        }
    }

    /** The client session of a persistence context: the root of its units of work. */
    private static AbstractSession clientOf(AbstractSession session) {
        AbstractSession s = session;
        while (s.isUnitOfWork()) {
            s = ((UnitOfWorkImpl) s).getParent();
        }
        if (!s.isClientSession()) {
            throw new IllegalStateException("marking on EclipseLink needs a client session per persistence context "
                    + "(the JPA default, a server session); this change was written through " + s.getClass().getName());
        }
        return s;
    }

    /** Whether a client session's transactions are JTA's; ask the client session: a unit of work does not know. */
    private static boolean isJta(AbstractSession client) {
        return client.hasExternalTransactionController();
    }

    /**
     * The persistence context's EclipseLink tenant: the value it gives a tenant context property of the unit's
     * {@code @Multitenant} entities — {@code eclipselink.tenant-id} first, then the others by name, so that the choice
     * never depends on a set's order; the persistence context's own values before the unit's — else the application's
     * ({@code TenantResolver}). One tenant per transaction's marks, as on Hibernate.
     */
    private static String tenantOf(AbstractSession client, MarkSink sink) {
        List<String> properties = contextProperties(client);
        for (Map<?, ?> level : new Map<?, ?>[] {client.getProperties(), client.getParent().getProperties()}) {
            for (String property : properties) {
                Object tenant = level.get(property);
                if (tenant != null && !tenant.toString().isEmpty()) {
                    return tenant.toString();
                }
            }
        }
        return sink.currentTenant();
    }

    private static List<String> contextProperties(AbstractSession client) {
        while (true) {
            try {
                List<String> properties = new ArrayList<>(new TreeSet<>(client.getMultitenantContextProperties()));
                properties.remove(PersistenceUnitProperties.MULTITENANT_PROPERTY_DEFAULT);
                properties.add(0, PersistenceUnitProperties.MULTITENANT_PROPERTY_DEFAULT);
                return properties;
            } catch (ConcurrentModificationException filling) {
                // the unit's set is shared with its server session, and the first client session of a table-per-tenant
                // entity adds that entity's property to it: read it again
            }
        }
    }
}
