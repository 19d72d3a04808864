package dev.projections.it.support;

import dev.projections.MarkKey;
import dev.projections.MarksCommitted;
import dev.projections.RefreshListener;
import dev.projections.RefreshOutcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Deployed with in-container tests: records every {@link MarksCommitted} event (with the thread that fired it)
 * and every refresh outcome (with the thread that ran it).
 */
@ApplicationScoped
public class CommitRecorder implements RefreshListener {

    public record Committed(MarkKey key, String thread) {
    }

    public record Refreshed(MarkKey key, RefreshOutcome outcome, String thread) {
    }

    private final List<Committed> committed = new CopyOnWriteArrayList<>();
    private final List<Refreshed> refreshed = new CopyOnWriteArrayList<>();

    void onCommit(@Observes MarksCommitted event) {
        for (MarkKey key : event.keys()) {
            committed.add(new Committed(key, Thread.currentThread().getName()));
        }
    }

    @Override
    public void refreshed(MarkKey key, RefreshOutcome outcome, Duration took) {
        refreshed.add(new Refreshed(key, outcome, Thread.currentThread().getName()));
    }

    public List<Committed> committed(MarkKey key) {
        return committed.stream().filter(c -> c.key().equals(key)).toList();
    }

    public List<Refreshed> refreshed(MarkKey key) {
        return refreshed.stream().filter(r -> r.key().equals(key)).toList();
    }
}
