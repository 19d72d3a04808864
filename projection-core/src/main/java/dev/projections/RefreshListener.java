package dev.projections;

import java.time.Duration;

/**
 * Told of every refresh's outcome (metrics, tests), after the refresh committed or its failure was recorded. What it
 * throws is logged and counted ({@code projection.listener.failures}) and changes nothing: the refresh stands.
 */
public interface RefreshListener {

    void refreshed(MarkKey key, RefreshOutcome outcome, Duration took);

    RefreshListener NONE = (key, outcome, took) -> { };
}
