package dev.projections.it.support;

import dev.projections.Projection;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * A rebuildable test projection of 3,000 ids ({@code h-0000} … {@code h-2999}) whose refreshes wait while the test
 * holds them, so a run's rebuild marks stay pending for as long as the test needs; it records what it refreshed.
 */
@ApplicationScoped
public class HeldRebuildProjection implements Projection {

    public static final String NAME = "held-rebuild";
    public static final List<String> IDS = IntStream.range(0, 3000).mapToObj(i -> String.format("h-%04d", i)).toList();

    private volatile CountDownLatch held = new CountDownLatch(0);
    private final Set<String> refreshed = ConcurrentHashMap.newKeySet();

    @Override
    public String name() {
        return NAME;
    }

    /** Refreshes wait from now until {@link #release()} (at most a minute: a forgotten hold cannot hang the server). */
    public void hold() {
        held = new CountDownLatch(1);
    }

    public void release() {
        held.countDown();
    }

    public Set<String> refreshed() {
        return refreshed;
    }

    @Override
    public void refresh(String id) throws InterruptedException {
        held.await(1, TimeUnit.MINUTES);
        refreshed.add(id);
    }

    @Override
    public List<String> ids(String after, int limit) {
        return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
    }
}
