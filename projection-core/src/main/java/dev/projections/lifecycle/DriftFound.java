package dev.projections.lifecycle;

import java.time.Instant;
import java.util.List;

/**
 * Keys of a projection were found drifted — their read-model rows differ from what a refresh would write now — and
 * re-marked, so the ordinary refresh repairs them (docs/design.md D58). Told after the commit that re-marked them.
 *
 * @param tenant          {@code ""} for none
 * @param ids             the drifted keys' ids, at most a rebuild page of them
 * @param verificationRun the verification run whose step found them; {@code null} when the sweep's continuous sample
 *                        ({@code projection.<name>.verify-per-minute}) did
 */
public record DriftFound(String projection, String tenant, List<String> ids, String verificationRun, Instant at)
        implements LifecycleEvent {

    public DriftFound {
        ids = List.copyOf(ids);
    }
}
