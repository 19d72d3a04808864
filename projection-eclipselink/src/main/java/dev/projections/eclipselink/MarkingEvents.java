package dev.projections.eclipselink;

import dev.projections.marking.TransactionMarks;
import java.util.List;
import org.eclipse.persistence.descriptors.DescriptorEvent;
import org.eclipse.persistence.descriptors.DescriptorEventAdapter;
import org.eclipse.persistence.internal.sessions.AbstractSession;
import org.eclipse.persistence.queries.ObjectLevelModifyQuery;
import org.eclipse.persistence.sessions.changesets.ObjectChangeSet;

/**
 * The descriptor listener of every {@code @Projected} entity: turns the inserts, updates and deletes EclipseLink writes
 * (at a flush or at commit, in the business transaction) into marks of the transaction's {@link CommitMarks}. An update
 * marks the key in the present state and, where the path's attribute changed, the one in its change record's old
 * value, so moving an order to another customer marks both. An update of only an owned collection is written, and
 * marked, as an update of its owner.
 * <p>
 * Taking up a projected entity (loading, persisting, merging or removing one) opens the transaction's buffer when
 * {@code markDirty} buffered marks earlier in a JTA transaction, so they are written with this unit's, in one statement
 * (docs/contract.md §3).
 */
final class MarkingEvents extends DescriptorEventAdapter {

    private final ProjectedDescriptors index;

    MarkingEvents(ProjectedDescriptors index) {
        this.index = index;
    }

    @Override
    public void postInsert(DescriptorEvent event) {
        mark(event, null);
    }

    @Override
    public void postUpdate(DescriptorEvent event) {
        // the event carries no change set of its own after the update: its write query does
        mark(event, event.getQuery() instanceof ObjectLevelModifyQuery write ? write.getObjectChangeSet() : null);
    }

    @Override
    public void postDelete(DescriptorEvent event) {
        mark(event, null);
    }

    @Override
    public void postClone(DescriptorEvent event) {
        CommitMarks.openIfExplicitMarksWait(event.getSession());
    }

    @Override
    public void prePersist(DescriptorEvent event) {
        CommitMarks.openIfExplicitMarksWait(event.getSession());
    }

    @Override
    public void preRemove(DescriptorEvent event) {
        CommitMarks.openIfExplicitMarksWait(event.getSession());
    }

    @Override
    public void postMerge(DescriptorEvent event) {
        CommitMarks.openIfExplicitMarksWait(event.getSession());
    }

    private void mark(DescriptorEvent event, ObjectChangeSet changes) {
        Object entity = event.getObject();
        List<KeyPath> paths = index.pathsOf(entity);
        if (paths.isEmpty()) {
            return;
        }
        AbstractSession session = event.getSession();
        TransactionMarks marks = CommitMarks.of(session);
        for (KeyPath path : paths) {
            String key = path.keyIn(entity, session);
            if (key != null) {
                marks.add(path.projection(), key);
            }
            String oldKey = path.oldKeyIn(changes, session);
            if (oldKey != null) {
                marks.add(path.projection(), oldKey);
            }
        }
    }
}
