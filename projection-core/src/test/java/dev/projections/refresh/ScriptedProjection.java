package dev.projections.refresh;

import dev.projections.Projection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A projection whose read model lives outside the database (a map standing for a search index or a cache), so
 * nothing rolls its writes back. Tests script it: a gate holds a refresh after it read the source, a failure
 * can follow the write (as when the reaper rolled the transaction back while the thread went on), and a poison
 * id makes {@code refreshAll} throw.
 */
final class ScriptedProjection implements Projection {

    /** Holds a refresh of one id after it read the source, until released. */
    static final class Gate {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
    }

    static final String NAME = "scripted";

    final Map<String, String> source = new ConcurrentHashMap<>();
    final Map<String, String> model = new ConcurrentHashMap<>();
    final List<String> calls = new CopyOnWriteArrayList<>();
    final List<List<String>> batches = new CopyOnWriteArrayList<>();
    private final Map<String, Gate> gates = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
    private final Map<String, Boolean> failAfterWrite = new ConcurrentHashMap<>();
    private volatile String poison;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void refresh(String id) throws InterruptedException {
        calls.add(id);
        String value = source.get(id);
        // decided when the refresh begins: a refresh held at the gate fails, not one that overtakes it
        boolean fail = failures.getOrDefault(id, new AtomicInteger()).getAndUpdate(n -> Math.max(0, n - 1)) > 0;
        Gate gate = gates.remove(id);
        if (gate != null) {
            gate.entered.countDown();
            gate.release.await();
        }
        if (fail && !failAfterWrite.getOrDefault(id, false)) {
            throw new IllegalStateException("scripted failure of " + id);
        }
        if (value == null) {
            model.remove(id);
        } else {
            model.put(id, value);
        }
        if (fail) {
            throw new IllegalStateException("scripted failure of " + id + " after its write");
        }
    }

    @Override
    public void refreshAll(List<String> ids) throws Exception {
        batches.add(List.copyOf(ids));
        if (ids.contains(poison)) {
            throw new IllegalStateException("poisoned batch");
        }
        Projection.super.refreshAll(ids);
    }

    Gate gate(String id) {
        Gate gate = new Gate();
        gates.put(id, gate);
        return gate;
    }

    void failNext(String id, int times) {
        failures.put(id, new AtomicInteger(times));
    }

    /** The next refresh of {@code id} writes the read model and then fails. */
    void writeThenFail(String id) {
        failNext(id, 1);
        failAfterWrite.put(id, true);
    }

    void poison(String id) {
        poison = id;
    }

    long callsOf(String id) {
        return calls.stream().filter(id::equals).count();
    }
}
