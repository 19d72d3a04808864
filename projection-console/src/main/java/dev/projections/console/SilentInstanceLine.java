package dev.projections.console;

/**
 * An instance that reports deploying projections ({@code projection_instance}) but writes no activity: one of the
 * previous release during a rolling upgrade. Its claims show no holder.
 */
public final class SilentInstanceLine {
    private final String instance;
    private final String projections;

    SilentInstanceLine(String instance, String projections) {
        this.instance = instance;
        this.projections = projections;
    }

    public String getInstance() {
        return instance;
    }

    public String getProjections() {
        return projections;
    }
}
