package dev.projections.store;

/** A second rebuild of a projection and tenant while one runs. */
public final class RebuildAlreadyRunningException extends IllegalStateException {

    private final String runningRunId;

    public RebuildAlreadyRunningException(String projection, String tenant, String runningRunId) {
        super("a rebuild or verification of " + projection + (tenant.isEmpty() ? "" : " for tenant " + tenant)
                + " is already running (run " + runningRunId + "); wait for it to finish or cancel it");
        this.runningRunId = runningRunId;
    }

    public String runningRunId() {
        return runningRunId;
    }
}
