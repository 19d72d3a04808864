package dev.projections;

import java.util.Locale;

/** The outcome of one refresh, as the {@code projection.refresh} timer tags it. */
public enum RefreshOutcome {
    SUCCESS, REPEATED, FAILED;

    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
