package dev.projections.engine;

import dev.projections.MarkKey;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import java.time.Duration;
import java.util.List;

/**
 * Tells every listener of a refresh, in order, even when one before it throws: one application listener that fails
 * must not blind the others (or the meters). The first failure is thrown afterwards, the later ones suppressed in it,
 * so the engine logs and counts it as what threw after the refresh (docs/contract.md §6) — never as its failure.
 */
public final class EveryListener implements RefreshListener {

    private final List<RefreshListener> listeners;

    public EveryListener(List<RefreshListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void refreshed(MarkKey key, RefreshOutcome outcome, Duration took) {
        RuntimeException first = null;
        for (RefreshListener listener : listeners) {
            try {
                listener.refreshed(key, outcome, took);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else if (first != e) {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
