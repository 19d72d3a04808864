package dev.projections.hibernate;

import java.util.List;
import org.hibernate.event.spi.AbstractCollectionEvent;
import org.hibernate.event.spi.EventSource;
import org.hibernate.event.spi.PostCollectionRecreateEvent;
import org.hibernate.event.spi.PostCollectionRecreateEventListener;
import org.hibernate.event.spi.PostCollectionRemoveEvent;
import org.hibernate.event.spi.PostCollectionRemoveEventListener;
import org.hibernate.event.spi.PostCollectionUpdateEvent;
import org.hibernate.event.spi.PostCollectionUpdateEventListener;
import org.hibernate.event.spi.PostDeleteEvent;
import org.hibernate.event.spi.PostDeleteEventListener;
import org.hibernate.event.spi.PostInsertEvent;
import org.hibernate.event.spi.PostInsertEventListener;
import org.hibernate.event.spi.PostUpdateEvent;
import org.hibernate.event.spi.PostUpdateEventListener;
import org.hibernate.event.spi.PreUpdateEvent;
import org.hibernate.event.spi.PreUpdateEventListener;
import org.hibernate.persister.entity.EntityPersister;

/**
 * The product's entity listener: turns inserts, updates, deletes and owned-collection changes of
 * {@code @Projected} entities into marks in the session's {@link SessionMarks}. An update marks the key
 * in the old state and the one in the new state, so moving an order to another customer marks both.
 * <p>
 * An update of a reattached entity ({@code Session.update} of a detached instance) comes without an old state:
 * Hibernate never saw the row. Then the old keys are read from the database row just before Hibernate updates
 * it (its snapshot, one select by id, only for entities whose key paths are attributes or associations), so
 * the customer an order moved away from is marked too.
 */
final class MarkingListener implements PostInsertEventListener, PostUpdateEventListener, PostDeleteEventListener,
        PostCollectionRecreateEventListener, PostCollectionUpdateEventListener, PostCollectionRemoveEventListener,
        PreUpdateEventListener {

    private final ProjectedEntityIndex index;

    MarkingListener(ProjectedEntityIndex index) {
        this.index = index;
    }

    @Override
    public void onPostInsert(PostInsertEvent event) {
        mark(event.getSession(), event.getPersister(), event.getId(), event.getState(), null);
    }

    @Override
    public void onPostUpdate(PostUpdateEvent event) {
        mark(event.getSession(), event.getPersister(), event.getId(), event.getState(), event.getOldState());
    }

    @Override
    public boolean onPreUpdate(PreUpdateEvent event) {
        if (event.getOldState() != null || event.getSession() == null) {
            // a StatelessSession's update comes without a session: a bypass, marked by markDirty (docs/guide/using.md)
            return false;
        }
        List<KeyPath> paths = index.pathsOf(event.getPersister().getEntityName());
        if (paths.stream().allMatch(KeyPath::isId)) {
            return false;
        }
        Object[] row = event.getSession().getPersistenceContextInternal()
                .getDatabaseSnapshot(event.getId(), event.getPersister());
        if (row != null) {
            SessionMarks marks = SessionMarks.of(event.getSession());
            for (KeyPath path : paths) {
                String oldKey = path.isId() ? null : path.keyIn(event.getId(), row, event.getPersister(), event.getSession());
                if (oldKey != null) {
                    marks.add(path.projection(), oldKey);
                }
            }
        }
        return false; // never vetoes the update
    }

    @Override
    public void onPostDelete(PostDeleteEvent event) {
        mark(event.getSession(), event.getPersister(), event.getId(), event.getDeletedState(), null);
    }

    @Override
    public void onPostRecreateCollection(PostCollectionRecreateEvent event) {
        markOwner(event);
    }

    @Override
    public void onPostUpdateCollection(PostCollectionUpdateEvent event) {
        markOwner(event);
    }

    @Override
    public void onPostRemoveCollection(PostCollectionRemoveEvent event) {
        markOwner(event);
    }

    private void markOwner(AbstractCollectionEvent event) {
        Object owner = event.getAffectedOwnerOrNull();
        if (owner == null) {
            return;
        }
        EntityPersister persister = event.getSession().getEntityPersister(event.getAffectedOwnerEntityName(), owner);
        Object[] state = persister.getValues(owner);
        mark(event.getSession(), persister, event.getAffectedOwnerIdOrNull(), state, null);
    }

    private void mark(EventSource session, EntityPersister persister, Object id, Object[] state, Object[] oldState) {
        List<KeyPath> paths = index.pathsOf(persister.getEntityName());
        if (paths.isEmpty()) {
            return;
        }
        SessionMarks marks = SessionMarks.of(session);
        for (KeyPath path : paths) {
            String key = path.keyIn(id, state, persister, session);
            if (key != null) {
                marks.add(path.projection(), key);
            }
            if (oldState != null) {
                String oldKey = path.keyIn(id, oldState, persister, session);
                if (oldKey != null) {
                    marks.add(path.projection(), oldKey);
                }
            }
        }
    }

    @Override
    public boolean requiresPostCommitHandling(EntityPersister persister) {
        return false;
    }
}
