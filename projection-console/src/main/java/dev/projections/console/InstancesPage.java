package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;

/**
 * Every instance that reported in {@code projection_node} (docs/contract.md §12): what it deploys, how busy it is and
 * how its clock compares with the database's. A GET page; an instance that missed its reports for 3 sweep intervals is
 * shown as gone until the trend retention forgets it.
 */
@Named("projectionsInstances")
@RequestScoped
public class InstancesPage {

    /** One instance's line (getters: Jakarta EL 5 does not read record components). */
    public static final class Line {
        private final InstanceReport node;
        private final Instances instances;

        Line(InstanceReport node, Instances instances) {
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

    /**
     * An instance that reports deploying projections ({@code projection_instance}) but writes no activity: one of the
     * previous release during a rolling upgrade. Its claims show no holder.
     */
    public static final class Silent {
        private final String instance;
        private final String projections;

        Silent(String instance, String projections) {
            this.instance = instance;
            this.projections = projections;
        }

        public String getInstance() {
            return instance;
        }

        public String getProjections() {
            return projections;
        }
    }

    @Inject // not @EJB: Payara leaves @EJB fields of a web-fragment jar null (docs/pitfalls.md #66)
    ConsoleReads reads;

    private List<Line> lines;
    private List<Silent> silent;
    private Instances instances;

    public List<Line> getLines() {
        read();
        return lines;
    }

    /** Instances that deploy projections lately and report no activity (the previous release's). */
    public List<Silent> getSilent() {
        read();
        return silent;
    }

    /** What the clock column means and where it flags, with this instance's limit (its lease-time is everyone's). */
    public String getSkewTitle() {
        read();
        return Text.of("instances.skew.title", Format.number(instances.skewLimit().toMillis()));
    }

    private void read() {
        if (lines != null) {
            return;
        }
        instances = reads.instances();
        lines = instances.nodes().stream().map(node -> new Line(node, instances)).toList();
        java.util.Set<String> reporting = new java.util.HashSet<>();
        instances.nodes().forEach(node -> reporting.add(node.instanceId()));
        silent = instances.deployed().entrySet().stream().filter(entry -> !reporting.contains(entry.getKey()))
                .map(entry -> new Silent(entry.getKey(), String.join(", ", entry.getValue()))).toList();
    }
}
