package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.MarkKey;
import dev.projections.MarksCommitted;
import dev.projections.TenantResolver;
import dev.projections.marking.MarkBuffer;
import dev.projections.marking.MarkSink;
import dev.projections.marking.ProjectedUnits;
import dev.projections.store.PendingQueue;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Where the Hibernate integration delivers marks: written by the pending store, announced after commit. */
@ApplicationScoped
public class MarkSinkBean implements MarkSink {

    @Inject
    EngineResources resources;


    @Inject
    Foundation foundation;

    @Inject
    Event<MarksCommitted> committed;

    @Inject
    HandoffObserver handoff;

    private static final Logger LOG = Logger.getLogger(MarkSinkBean.class.getName());

    @Inject
    Instance<TenantResolver> tenantResolver;

    @Resource
    TransactionSynchronizationRegistry transactions;

    /**
     * The tenant of an automatic mark whose session has none: the {@link TenantResolver} bean's, else {@code ""}
     * (a session of a multi-tenant unit always has one).
     */
    @Override
    public String currentTenant() {
        if (!tenantResolver.isResolvable()) {
            return "";
        }
        String tenant = tenantResolver.get().currentTenant();
        return tenant == null ? "" : tenant;
    }

    /**
     * The tenant of an explicit mark or a rebuild (docs/contract.md §8): the {@link TenantResolver} bean's answer when there is
     * one ({@code null} or {@code ""}: no tenant, as the application says); else, in an application with a
     * multi-tenant persistence unit, that unit's {@code CurrentTenantIdentifierResolver}. When neither finds a
     * tenant in a multi-tenant application this fails, naming {@code what}: writing {@code ""} would refresh
     * without a tenant and leave the tenant's row stale with no mark.
     */
    String explicitTenant(String what) {
        if (tenantResolver.isResolvable()) {
            return currentTenant();
        }
        if (!ProjectedUnits.multiTenant()) {
            return "";
        }
        String tenant = ProjectedUnits.currentTenant();
        if (tenant == null) {
            throw new IllegalStateException(what + ": no tenant is current, and this application has a multi-tenant "
                    + "persistence unit; call it where the unit's CurrentTenantIdentifierResolver gives the tenant, "
                    + "or deploy a TenantResolver bean");
        }
        return tenant;
    }

    @Override
    public boolean explicitMarksWaiting() {
        return transactions.getTransactionStatus() == Status.STATUS_ACTIVE
                && transactions.getResource(MarkBuffer.class) instanceof ExplicitMarks;
    }

    @Override
    public void write(Connection connection, List<MarkKey> sortedKeys) throws SQLException {
        if (foundation.settings().enabled()) {
            // the persistence unit's own connection: the product's tables named in their schema, if one is set
            foundation.store().queue().upsert(resources.tables().connection(connection), sortedKeys, PendingQueue.LIVE,
                    null, traceparent(), foundation.clock().instant());
            foundation.signals().marksWritten(connection); // the other instances hear of it once it committed
            foundation.stats().marksWritten();
        }
    }

    /**
     * The committing thread's trace context, where refreshes are traced (the refresh's span links to it); {@code null}
     * otherwise, and whenever the tracer fails or answers something that is not a W3C traceparent: tracing never fails
     * a business commit.
     */
    private String traceparent() {
        try {
            dev.projections.spi.RefreshTracing tracing = resources.tracing();
            String traceparent = tracing.enabled() ? tracing.currentTraceparent() : null;
            return traceparent != null && dev.projections.spi.RefreshTracing.TRACEPARENT.matcher(traceparent).matches()
                    ? traceparent : null;
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.FINE, "no trace context for these marks", e);
            return null;
        }
    }

    @Override
    public Collection<MarkKey> sessionBufferOpened(MarkBuffer sessionBuffer) {
        int status = transactions.getTransactionStatus();
        if (status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
            return List.of();
        }
        Object current = transactions.getResource(MarkBuffer.class);
        Collection<MarkKey> adopted = List.of();
        if (current instanceof ExplicitMarks explicit) {
            adopted = explicit.handOver();
        }
        if (current == null || current instanceof ExplicitMarks) {
            try {
                transactions.putResource(MarkBuffer.class, sessionBuffer);
            } catch (IllegalStateException completing) {
                // opened by the flush at commit: no markDirty can follow, nothing needs to find the buffer
            }
        }
        return adopted;
    }

    /**
     * Hands the keys to the drainers first, then announces them to applications: an application's observer that
     * throws must not keep committed keys from being refreshed.
     */
    @Override
    public void committed(Set<MarkKey> keys) {
        if (!foundation.settings().enabled()) {
            return;
        }
        // this thread's open captures take the keys before any drainer can refresh them (no statement)
        foundation.waits().committed(keys);
        try {
            handoff.handOver(keys);
        } catch (RuntimeException e) {
            // the keys are committed in the pending table: the sweep starts a drainer for them
            LOG.log(Level.WARNING, "PRJ403: could not hand committed keys to a drainer; the sweep will pick them up", e);
        }
        try {
            committed.fire(new MarksCommitted(keys));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "PRJ404: an observer of MarksCommitted failed; the marks are refreshed all the same", e);
        }
    }
}
