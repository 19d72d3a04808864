package dev.projections.ee.admin;

import dev.projections.store.NodeReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The instances as the console shows them: what each reported last ({@code projection_node}), the projections it
 * deployed lately ({@code projection_instance}), when it was read and after how long without a report an instance
 * counts as gone (3 sweep intervals, as for orphaned marks), and which one serves the console.
 */
public record Instances(List<NodeReport> nodes, Map<String, TreeSet<String>> deployed, Instant readAt,
                        Duration goneAfter, String self) {

    /** The projections {@code instanceId} reported lately, empty when none. */
    public Set<String> deployedBy(String instanceId) {
        return deployed.getOrDefault(instanceId, new TreeSet<>());
    }

    /** Whether {@code node} missed its reports for longer than {@link #goneAfter}. */
    public boolean gone(NodeReport node) {
        return node.lastSeen().isBefore(readAt.minus(goneAfter));
    }
}
