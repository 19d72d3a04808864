package dev.projections.refresh;

import dev.projections.Projection;
import java.util.Set;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The projections this instance deploys, and which of them are paused. */
public interface ProjectionCatalog {

    Projection byName(String name);

    /** Names of every deployed projection. */
    Set<String> names();

    /** Names of deployed projections whose marks this instance may claim now. */
    Set<String> claimable();

    /** The engine changed which projections are claimable (a probe lifted a suspension): a cached copy is stale. */
    default void claimableChanged() {
    }

    /**
     * A fixed set of projections, none of them paused: for an engine outside a server (tests, benchmarks), where no
     * operator pauses anything. The server's catalogue reads the pauses.
     */
    static ProjectionCatalog of(Projection... projections) {
        Map<String, Projection> byName = new LinkedHashMap<>();
        for (Projection projection : projections) {
            if (byName.put(projection.name(), projection) != null) {
                throw new IllegalArgumentException("two projections are named " + projection.name());
            }
        }
        Set<String> names = Collections.unmodifiableSet(byName.keySet());
        return new ProjectionCatalog() {
            @Override
            public Projection byName(String name) {
                return byName.get(name);
            }

            @Override
            public Set<String> names() {
                return names;
            }

            @Override
            public Set<String> claimable() {
                return names;
            }
        };
    }
}
