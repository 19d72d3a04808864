package dev.projections.hibernate;

import org.hibernate.HibernateException;
import org.hibernate.event.spi.DeleteContext;
import org.hibernate.event.spi.DeleteEvent;
import org.hibernate.event.spi.DeleteEventListener;
import org.hibernate.event.spi.EventSource;
import org.hibernate.event.spi.MergeContext;
import org.hibernate.event.spi.MergeEvent;
import org.hibernate.event.spi.MergeEventListener;
import org.hibernate.event.spi.PersistContext;
import org.hibernate.event.spi.PersistEvent;
import org.hibernate.event.spi.PersistEventListener;
import org.hibernate.event.spi.PostLoadEvent;
import org.hibernate.event.spi.PostLoadEventListener;

/**
 * Opens a session's mark buffer as soon as the session takes up a {@code @Projected} entity (loads, persists,
 * merges or removes one) in a transaction where {@code markDirty} already buffered marks, so those marks move into
 * the session's buffer and the transaction writes all its marks in one key-ordered statement (docs/contract.md §3).
 * <p>
 * Why not wait for the flush: the explicit marks' synchronization was registered with the transaction before the
 * session joined it, so at commit it runs first. Had it written its marks there, the session's marks would follow
 * in a second statement, and two transactions marking the same keys in mirror-image order would deadlock. Every
 * entity whose change marks anything passes through one of these events before the commit's flush, so by then
 * the explicit marks already belong to the session.
 */
final class SessionJoinListener implements PostLoadEventListener, PersistEventListener, MergeEventListener,
        DeleteEventListener {

    private final ProjectedEntityIndex index;

    SessionJoinListener(ProjectedEntityIndex index) {
        this.index = index;
    }

    @Override
    public void onPostLoad(PostLoadEvent event) {
        if (event.getPersister() != null && !index.pathsOf(event.getPersister().getEntityName()).isEmpty()) {
            SessionMarks.openIfExplicitMarksWait(event.getSession());
        }
    }

    @Override
    public void onPersist(PersistEvent event) {
        tookUp(event.getSession(), event.getEntityName(), event.getObject());
    }

    @Override
    public void onPersist(PersistEvent event, PersistContext createdAlready) {
        onPersist(event);
    }

    @Override
    public void onMerge(MergeEvent event) {
        tookUp(event.getSession(), event.getEntityName(), event.getOriginal());
    }

    @Override
    public void onMerge(MergeEvent event, MergeContext copiedAlready) {
        onMerge(event);
    }

    @Override
    public void onDelete(DeleteEvent event) {
        tookUp(event.getSession(), event.getEntityName(), event.getObject());
    }

    @Override
    public void onDelete(DeleteEvent event, DeleteContext transientEntities) {
        onDelete(event);
    }

    private void tookUp(EventSource session, String entityName, Object entity) {
        if (entity == null) {
            return;
        }
        String name;
        try {
            name = session.getEntityPersister(entityName, entity).getEntityName();
        } catch (HibernateException notAnEntity) {
            return; // Hibernate's own listener has already refused it
        }
        if (!index.pathsOf(name).isEmpty()) {
            SessionMarks.openIfExplicitMarksWait(session);
        }
    }
}
