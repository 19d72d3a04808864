package dev.projections.ee;

import dev.projections.Projection;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.Settings;
import dev.projections.marking.ProjectionNames;
import dev.projections.refresh.ProjectionCatalog;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The {@link Projection} beans of the deployment, by name; names are checked at start-up. */
@ApplicationScoped
public class ProjectionRegistry implements ProjectionCatalog {

    @Inject
    @Any
    Instance<Projection> beans;

    @Inject
    PauseState pauses;

    @Inject
    EngineResources resources;

    private Map<String, Projection> byName;
    private volatile Settings settings;

    @PostConstruct
    void init() {
        Map<String, Projection> found = new TreeMap<>();
        for (Projection projection : beans) {
            String name = projection.name();
            if (!ProjectionNames.isValid(name)) {
                throw new IllegalStateException("projection bean " + projection.getClass().getName()
                        + " has an invalid name \"" + name + "\": a name must match [a-z0-9._-]{1,100}");
            }
            Projection previous = found.put(name, projection);
            if (previous != null) {
                throw new IllegalStateException("two projection beans are named \"" + name + "\": "
                        + previous.getClass().getName() + " and " + projection.getClass().getName());
            }
        }
        byName = Map.copyOf(found);
    }

    /**
     * The deployment's settings with each projection's own ({@code projection.<name>.<key>}, its
     * {@code defaultSettings()}): resolved once, at start-up, where a key naming no projection or a bad value fails
     * the deployment naming key and value.
     */
    public Settings settings() {
        Settings resolved = settings;
        if (resolved == null) {
            synchronized (this) {
                if (settings == null) {
                    settings = ProjectionSettings.resolve(resources.settings(), resources.settingSource(),
                            byName.values());
                }
                resolved = settings;
            }
        }
        return resolved;
    }

    @Override
    public Projection byName(String name) {
        Projection projection = byName.get(name);
        if (projection == null) {
            throw new dev.projections.ops.UnknownProjection(name, names());
        }
        return projection;
    }

    public boolean isKnown(String name) {
        return byName.containsKey(name);
    }

    @Override
    public Set<String> names() {
        return new TreeSet<>(byName.keySet());
    }

    @Override
    public void claimableChanged() {
        pauses.invalidate();
    }

    @Override
    public Set<String> claimable() {
        Set<String> paused = pauses.paused();
        if (paused.isEmpty()) {
            return byName.keySet();
        }
        Set<String> claimable = new TreeSet<>(byName.keySet());
        claimable.removeAll(paused);
        return claimable;
    }
}
