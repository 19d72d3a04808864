package dev.projections.refresh;

import dev.projections.Projection;

/** A projection of tests that need only its name: its refresh does nothing. */
final class NamedProjection implements Projection {

    private final String name;

    private NamedProjection(String name) {
        this.name = name;
    }

    static Projection named(String name) {
        return new NamedProjection(name);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void refresh(String id) {
    }
}
