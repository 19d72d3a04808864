package dev.projections.inspect;

import java.time.Duration;

/** Per projection: marks waiting, failing, the age of the oldest due one, due now, failing rebuild marks, parked. */
public record ProjectionCounts(long pending, long failing, Duration oldestDueAge, long dueNow, long rebuildFailing,
                               long parked) {
}
