package dev.projections.engine;

import dev.projections.MarkKey;
import dev.projections.store.PendingQueue;
import java.time.Duration;
import java.util.List;

/** Marks as a committed business change writes them, through an assembled engine's own store and transactions. */
final class Marks {

    private Marks() {
    }

    /** The mark of {@code id} in {@code projection} (no tenant), committed at the engine's time. */
    static MarkKey mark(Engine engine, String projection, String id) throws Exception {
        return mark(engine, projection, id, null);
    }

    /** The same, by a business transaction whose trace context is {@code traceparent}. */
    static MarkKey mark(Engine engine, String projection, String id, String traceparent) throws Exception {
        MarkKey key = new MarkKey(projection, "", id);
        engine.transactions().inNewTransaction(Duration.ofSeconds(5), connection -> {
            engine.store().queue().upsert(connection, List.of(key), PendingQueue.LIVE, null, traceparent,
                    engine.clock().instant());
            return null;
        });
        return key;
    }
}
