package dev.projections.refresh;

/** What started a drainer: keys handed over after a commit, or the periodic sweep. */
public enum DrainerOrigin {
    HANDOFF, SWEEP;

    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
