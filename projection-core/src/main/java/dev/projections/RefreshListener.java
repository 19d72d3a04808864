package dev.projections;

import java.time.Duration;

/** Told of every refresh's outcome (metrics, tests). */
public interface RefreshListener {

    void refreshed(MarkKey key, RefreshOutcome outcome, Duration took);

    RefreshListener NONE = (key, outcome, took) -> { };
}
