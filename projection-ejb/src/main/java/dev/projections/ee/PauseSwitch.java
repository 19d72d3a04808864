package dev.projections.ee;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.security.Principal;

/** Pause and resume of a projection on every instance, through {@code projection_control} (docs/contract.md §2). */
@ApplicationScoped
public class PauseSwitch {

    @Inject
    EngineResources resources;

    @Inject
    ProjectionRegistry registry;

    @Inject
    PauseState pauses;

    @Inject
    AfterCommitDrainer drainer;

    /** The container's built-in bean for the caller. */
    @Inject
    Principal callerPrincipal;

    void pause(String projection) {
        setPaused(projection, true);
    }

    void suspend(String projection, String reason) {
        ArgumentChecks.projection(projection, registry);
        if (reason == null || reason.isBlank() || reason.length() > 1000) {
            throw new IllegalArgumentException("a suspension needs a reason of 1..1000 characters, was "
                    + (reason == null ? null : reason.length() + " characters"));
        }
        String user = caller();
        SqlCalls.call(resources, "suspend " + projection, c -> {
            resources.store().control().suspend(c, projection, reason, user, resources.clock().instant());
            return null;
        });
        pauses.invalidate();
    }

    void resume(String projection) {
        setPaused(projection, false);
        drainer.start();
    }

    boolean isPaused(String projection) {
        ArgumentChecks.projection(projection, registry);
        return SqlCalls.call(resources, "read the pause of " + projection,
                c -> resources.store().control().paused(c).contains(projection));
    }

    private void setPaused(String projection, boolean paused) {
        ArgumentChecks.projection(projection, registry);
        String user = caller();
        SqlCalls.call(resources, (paused ? "pause " : "resume ") + projection, c -> {
            resources.store().control().setPaused(c, projection, paused, user, resources.clock().instant());
            return null;
        });
        pauses.invalidate();
    }

    private String caller() {
        return CallerName.of(callerPrincipal);
    }
}
