package dev.projections.marking;

import dev.projections.MarkKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The marks one persistence context collects during one transaction, whatever the JPA provider: de-duplicated, kept in
 * key order, written once at commit ({@link #closeForWrite()}), handed to the drainers after a successful commit
 * ({@link #written()}). A change that arrives after the write, or a key too long for a mark, fails the flush rather than
 * go unmarked (docs/contract.md §3).
 */
public final class TransactionMarks implements MarkBuffer {

    private final String tenant;
    private final Set<MarkKey> keys = new TreeSet<>();
    private boolean written;

    /** A buffer for {@code tenant} ({@code ""} for none); a tenant too long for a mark is refused here. */
    public TransactionMarks(String tenant) {
        String checked = tenant == null ? "" : tenant;
        if (checked.length() > MarkKey.MAX_TENANT_LENGTH) {
            throw new IllegalStateException("tenant \"" + checked + "\" is over "
                    + MarkKey.MAX_TENANT_LENGTH + " characters");
        }
        this.tenant = checked;
    }

    public synchronized void add(String projection, String entityId) {
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

    /** Whether any key is buffered. */
    public synchronized boolean holdsAny() {
        return !keys.isEmpty();
    }

    /** Closes the buffer to late joiners (a {@code markDirty} after this buffers on its own) and returns its keys in key order. */
    public synchronized List<MarkKey> closeForWrite() {
        written = true;
        return new ArrayList<>(keys);
    }

    /** The keys this buffer wrote; empty when it never wrote (nothing changed, or the transaction ended before its write). */
    public synchronized Set<MarkKey> written() {
        return written ? Set.copyOf(keys) : Set.of();
    }
}
