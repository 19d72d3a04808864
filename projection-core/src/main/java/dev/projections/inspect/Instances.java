package dev.projections.inspect;

import dev.projections.ClockSkew;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The instances as the console shows them: what each reported last ({@code projection_node}), the projections it
 * deployed lately ({@code projection_instance}), when it was read and after how long without a report an instance
 * counts as gone (3 sweep intervals, as for orphaned marks), which one serves the console, and how far a clock may be
 * off (the limit the engine's heartbeat warns by, so the page and the log flag the same instances).
 */
public record Instances(List<InstanceReport> nodes, Map<String, TreeSet<String>> deployed, Instant readAt,
                        Duration goneAfter, String self, Duration skewLimit) {

    /** The projections {@code instanceId} reported lately, empty when none. */
    public Set<String> deployedBy(String instanceId) {
        return deployed.getOrDefault(instanceId, new TreeSet<>());
    }

    /** Whether {@code node} missed its reports for longer than {@link #goneAfter}. */
    public boolean gone(InstanceReport node) {
        return node.lastSeen().isBefore(readAt.minus(goneAfter));
    }

    /**
     * The projections some instance deployed lately and no instance that processes marks did (docs/design.md D54):
     * their marks are written and nothing refreshes them. An instance counts as processing unless its report says it
     * is a web node (one without a report is of an earlier release, and processes), as the engine's count does.
     */
    public SortedSet<String> unprocessed() {
        SortedSet<String> unprocessed = new TreeSet<>();
        deployed.values().forEach(unprocessed::addAll);
        Set<String> web = new HashSet<>();
        nodes.stream().filter(node -> !node.processing()).forEach(node -> web.add(node.instanceId()));
        deployed.forEach((instance, projections) -> {
            if (!web.contains(instance)) {
                unprocessed.removeAll(projections);
            }
        });
        return unprocessed;
    }

    /** Whether {@code node}'s clock is beyond {@link #skewLimit} either way. */
    public boolean skewed(InstanceReport node) {
        return new ClockSkew(node.clockSkew(), skewLimit).exceeded();
    }
}
