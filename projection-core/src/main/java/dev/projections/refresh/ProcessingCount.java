package dev.projections.refresh;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The instances that process marks, as a sweep counted them (docs/design.md D54): how many are live, and how many of
 * them deploy each of this instance's projections. A projection none of them deploys has its marks written (by this
 * instance, say a web node) and nothing refreshes them.
 *
 * @param instances    the live instances that process marks, whatever they deploy
 * @param byProjection for each of this instance's projections, the live processing instances that deploy it
 */
public record ProcessingCount(int instances, Map<String, Integer> byProjection) {

    public ProcessingCount {
        byProjection = Map.copyOf(byProjection);
    }

    /** Counts {@code deployments} (instance → projections, the processing instances only) for {@code projections}. */
    public static ProcessingCount of(Map<String, ? extends Set<String>> deployments, Set<String> projections) {
        Map<String, Integer> byProjection = new TreeMap<>();
        for (String projection : projections) {
            byProjection.put(projection, (int) deployments.values().stream()
                    .filter(deployed -> deployed.contains(projection)).count());
        }
        return new ProcessingCount(deployments.size(), byProjection);
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
