package dev.projections;

import java.time.Duration;

/**
 * One projection as the console's overview shows it: marks waiting (all tenants), due now, failing, the age of the
 * oldest due mark, the last error, whether it is paused, and its latest rebuild in the caller's tenant (or null).
 */
public record ProjectionStatus(String projection, long pending, long dueNow, long failing, long parked,
                               Duration oldestDueAge,
                               String lastError, boolean paused, String suspendedReason,
                               RebuildProgress latestRebuild) {
}
