package dev.projections.it.tenancy;

import dev.projections.Projection;
import jakarta.enterprise.context.ApplicationScoped;

/** The projection of {@link Note}s; the tests drive the engine by hand and only look at the marks. */
@ApplicationScoped
public class NotesProjection implements Projection {

    public static final String NAME = "tenancy-notes";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void refresh(String id) {
    }
}
