package dev.projections.store;

import java.time.Instant;

/** A suspension: why, by whom ("system" when the engine tripped it), since when. */
public record Suspension(String reason, String by, Instant since) {
}
