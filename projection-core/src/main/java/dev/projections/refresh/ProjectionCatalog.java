package dev.projections.refresh;

import dev.projections.Projection;
import java.util.Set;

/** The projections this instance deploys, and which of them are paused. */
public interface ProjectionCatalog {

    Projection byName(String name);

    /** Names of every deployed projection. */
    Set<String> names();

    /** Names of deployed projections whose marks this instance may claim now. */
    Set<String> claimable();
}
