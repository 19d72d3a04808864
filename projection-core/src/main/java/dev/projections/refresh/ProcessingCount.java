package dev.projections.refresh;

import dev.projections.store.LiveDeployment;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The instances that process marks and the web nodes, as a sweep counted them (docs/design.md D54): how many
 * processing instances are live, how many of them deploy each of this instance's projections, and how many live web
 * nodes deploy one of them. A projection no processing instance deploys has its marks written (by a web node, say)
 * and nothing refreshes them; a live web node is why an idle processing instance looks for due marks between sweeps.
 *
 * @param instances    the live instances that process marks, whatever they deploy
 * @param byProjection for each of this instance's projections, the live processing instances that deploy it
 * @param webNodes     the live web nodes, this one aside, that deploy one of this instance's projections
 */
public record ProcessingCount(int instances, Map<String, Integer> byProjection, int webNodes) {

    public ProcessingCount {
        byProjection = Map.copyOf(byProjection);
    }

    /** Counts {@code deployments} for {@code projections}, the projections of instance {@code self}. */
    public static ProcessingCount of(Collection<LiveDeployment> deployments, Set<String> projections, String self) {
        Set<String> processing = new HashSet<>();
        Set<String> web = new HashSet<>();
        Map<String, Set<String>> processingByProjection = new TreeMap<>();
        for (LiveDeployment deployment : deployments) {
            if (deployment.processing()) {
                processing.add(deployment.instanceId());
                processingByProjection.computeIfAbsent(deployment.projection(), p -> new HashSet<>())
                        .add(deployment.instanceId());
            } else if (!deployment.instanceId().equals(self) && projections.contains(deployment.projection())) {
                web.add(deployment.instanceId());
            }
        }
        Map<String, Integer> byProjection = new TreeMap<>();
        for (String projection : projections) {
            byProjection.put(projection, processingByProjection.getOrDefault(projection, Set.of()).size());
        }
        return new ProcessingCount(processing.size(), byProjection, web.size());
    }

    /** This instance's projections that no live processing instance deploys, by name. */
    public Set<String> unprocessed() {
        Set<String> none = new TreeSet<>();
        byProjection.forEach((projection, count) -> {
            if (count == 0) {
                none.add(projection);
            }
        });
        return none;
    }
}
