package dev.projections.it.deployment;

import dev.projections.Projection;
import jakarta.enterprise.context.ApplicationScoped;

/** A projection put where the engine cannot see it: in a WAR. */
@ApplicationScoped
public class ProjectionInAWar implements Projection {

    @Override
    public String name() {
        return "in-a-war";
    }

    @Override
    public void refresh(String id) {
    }
}
