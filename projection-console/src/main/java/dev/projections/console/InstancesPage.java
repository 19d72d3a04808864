package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.ee.admin.Instances;
import dev.projections.store.NodeReport;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Duration;
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
        private final NodeReport node;
        private final Instances instances;
        private final Duration skewTolerance;

        Line(NodeReport node, Instances instances, Duration skewTolerance) {
            this.node = node;
            this.instances = instances;
            this.skewTolerance = skewTolerance;
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

        /** A clock off by more than a tenth of the lease: the engine warns in the log too. */
        public boolean isSkewed() {
            return node.clockSkew().abs().compareTo(skewTolerance) > 0;
        }
    }

    @Inject // not @EJB: Payara leaves @EJB fields of a web-fragment jar null (docs/pitfalls.md #66)
    ConsoleReads reads;

    private List<Line> lines;

    public List<Line> getLines() {
        if (lines == null) {
            Instances instances = reads.instances();
            Duration tolerance = reads.settings().leaseTime().dividedBy(10);
            lines = instances.nodes().stream().map(node -> new Line(node, instances, tolerance)).toList();
        }
        return lines;
    }
}
