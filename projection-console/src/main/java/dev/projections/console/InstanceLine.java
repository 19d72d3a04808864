package dev.projections.console;

import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;

/** A line of the instances page: one instance that reported (getters: Jakarta EL 5 does not read record components). */
public final class InstanceLine {
    private final InstanceReport node;
    private final Instances instances;

    InstanceLine(InstanceReport node, Instances instances) {
        this.node = node;
        this.instances = instances;
    }

    public String getInstance() {
        return node.instanceId();
    }

    public boolean isSelf() {
        return node.instanceId().equals(instances.self());
    }

    public boolean isGone() {
        return instances.gone(node);
    }

    public String getState() {
        return isGone() ? Text.of("instances.state.gone") : Text.of("instances.state.live");
    }

    /** Whether it claims and refreshes marks or is a web node ({@code projection.processing=false}). */
    public String getRole() {
        return node.processing() ? Text.of("instances.role.processing") : Text.of("instances.role.web");
    }

    public String getLastSeen() {
        return Format.relative(node.lastSeen(), instances.readAt());
    }

    public String getLastSeenExact() {
        return Format.exact(node.lastSeen());
    }

    public String getStarted() {
        return Format.relative(node.startedAt(), instances.readAt());
    }

    public String getStartedExact() {
        return Format.exact(node.startedAt());
    }

    public String getProjections() {
        String deployed = String.join(", ", instances.deployedBy(node.instanceId()));
        return deployed.isEmpty() ? "–" : deployed;
    }

    public String getDrainers() {
        return Text.of("instances.drainers", Format.number(node.drainersBusy()), Format.number(node.workers()));
    }

    public String getClaims() {
        return Format.number(node.claimsHeld());
    }

    public String getPerMinute() {
        return Format.number(node.refreshesPerMinute());
    }

    public String getSkew() {
        return Text.of("instances.skew", (node.clockSkew().isNegative() ? "" : "+")
                + Format.number(node.clockSkew().toMillis()));
    }

    /** A clock beyond half the lease margin, the rule the engine warns by in its log. */
    public boolean isSkewed() {
        return instances.skewed(node);
    }
}
