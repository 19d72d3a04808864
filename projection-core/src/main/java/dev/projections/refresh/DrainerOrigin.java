package dev.projections.refresh;

import java.util.Locale;

/**
 * What started a drainer: keys handed over after a commit, the periodic sweep (or a resume), or another drainer
 * that found more work than its turn takes — a full batch (a backlog more drainers can share), or another
 * projection's keys or owed look waiting with no drainer to take them (a helper, docs/design.md D45), or an idle
 * processing instance's look for the marks of a web node's commits (docs/design.md D54), or another instance's signal
 * that it committed marks or started a rebuild run (D55).
 */
public enum DrainerOrigin {
    HANDOFF, SWEEP, BACKLOG, WAKE_UP, SIGNAL;

    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
