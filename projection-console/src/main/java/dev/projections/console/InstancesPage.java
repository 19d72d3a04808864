package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;
import java.util.HashSet;
import java.util.Set;

/**
 * Every instance that reported in {@code projection_node} (docs/contract.md §12): what it deploys, how busy it is and
 * how its clock compares with the database's. A GET page; an instance that missed its reports for 3 sweep intervals is
 * shown as gone until the trend retention forgets it.
 */
@Named("projectionsInstances")
@RequestScoped
public class InstancesPage {

    @Inject
    ConsoleReads reads;

    private List<InstanceLine> lines;
    private List<SilentInstanceLine> silent;
    private Instances instances;

    public List<InstanceLine> getLines() {
        read();
        return lines;
    }

    /** Instances that deploy projections lately and report no activity (the previous release's). */
    public List<SilentInstanceLine> getSilent() {
        read();
        return silent;
    }

    /**
     * The projections deployed lately that no instance processing marks deploys, comma-separated; empty when every
     * one has such an instance (docs/design.md D54).
     */
    public String getUnprocessed() {
        read();
        return String.join(", ", instances.unprocessed());
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
        lines = instances.nodes().stream().map(node -> new InstanceLine(node, instances)).toList();
        Set<String> reporting = new HashSet<>();
        instances.nodes().forEach(node -> reporting.add(node.instanceId()));
        silent = instances.deployed().entrySet().stream().filter(entry -> !reporting.contains(entry.getKey()))
                .map(entry -> new SilentInstanceLine(entry.getKey(), String.join(", ", entry.getValue()))).toList();
    }
}
