package dev.projections.ops;

import dev.projections.refresh.ProjectionCatalog;
import java.util.Set;
import java.util.TreeSet;

/**
 * An operation named a projection this instance does not deploy. An {@link IllegalArgumentException}, as the
 * {@code Projections} API promises; a face that must tell "not found" from "bad value" (the management API's 404)
 * tells it by this type, never by the message.
 */
public final class UnknownProjection extends IllegalArgumentException {

    private final String projection;

    public UnknownProjection(String projection, Set<String> known) {
        super("unknown projection " + (projection == null ? "null" : "\"" + projection + "\"") + "; known projections: "
                + new TreeSet<>(known));
        this.projection = projection;
    }

    /** {@code projection}, if {@code catalog} deploys it; otherwise this refusal, listing the known ones. */
    public static String requireKnown(String projection, ProjectionCatalog catalog) {
        if (projection == null || !catalog.names().contains(projection)) {
            throw new UnknownProjection(projection, catalog.names());
        }
        return projection;
    }

    /** The name given; {@code null} when none was. */
    public String projection() {
        return projection;
    }
}
