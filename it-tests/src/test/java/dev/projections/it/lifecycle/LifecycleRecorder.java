package dev.projections.it.lifecycle;

import dev.projections.lifecycle.LifecycleEvent;
import dev.projections.lifecycle.MarkParked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An application's observer of the engine's lifecycle events, in the test's WAR (not the engine's module): it keeps
 * what it saw, with the thread it saw it on, and throws on the parked marks of ids it is told to.
 */
@ApplicationScoped
public class LifecycleRecorder {

    public record Seen(LifecycleEvent event, String thread) {
    }

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final List<String> throwOn = new CopyOnWriteArrayList<>();

    void on(@Observes LifecycleEvent event) {
        seen.add(new Seen(event, Thread.currentThread().getName()));
    }

    void parked(@Observes MarkParked parked) {
        if (throwOn.contains(parked.id())) {
            throw new IllegalStateException("an observer that fails on " + parked.id());
        }
    }

    /**
     * What it saw so far, as a copy: events go on arriving on the engine's threads, and a view of the live list (a
     * {@code subList}) throws {@code ConcurrentModificationException} once one is added (a red CI of 2026-12-05).
     */
    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    public void throwOnParked(String id) {
        throwOn.add(id);
    }
}
