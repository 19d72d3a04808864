package dev.projections.refresh;

/**
 * What started a drainer: keys handed over after a commit, the periodic sweep (or a resume), or another drainer
 * that claimed a full batch and so found a backlog more drainers can share.
 */
public enum DrainerOrigin {
    HANDOFF, SWEEP, BACKLOG;

    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
