package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.projections.store.LiveDeployment;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What one instance's sweep makes of the live deployments (docs/design.md D54). */
class ProcessingCountTest {

    @Test
    void processingInstancesAreCountedPerProjectionOfThisInstanceAndWebNodesOnlyWhenTheyDeployOneOfThem() {
        ProcessingCount count = ProcessingCount.of(List.of(
                new LiveDeployment("worker-1", "orders", true),
                new LiveDeployment("worker-1", "invoices", true),
                new LiveDeployment("worker-2", "orders", true),
                new LiveDeployment("worker-3", "reports", true),
                new LiveDeployment("web-1", "orders", false),
                new LiveDeployment("web-2", "reports", false),
                new LiveDeployment("worker-1", "customers", true)),
                Set.of("orders", "invoices", "customers", "archive"), "worker-1");

        assertThat(count.instances()).as("every live processing instance").isEqualTo(3);
        assertThat(count.byProjection()).containsOnly(entry("orders", 2), entry("invoices", 1), entry("customers", 1),
                entry("archive", 0));
        assertThat(count.unprocessed()).containsExactly("archive");
        assertThat(count.webNodes()).as("web-2 deploys none of this instance's projections").isEqualTo(1);
    }

    @Test
    void aWebNodeDoesNotCountItselfAmongTheWebNodesThatWakeItsLooks() {
        ProcessingCount count = ProcessingCount.of(List.of(new LiveDeployment("web-1", "orders", false)),
                Set.of("orders"), "web-1");
        assertThat(count.webNodes()).isZero();
        assertThat(count.unprocessed()).containsExactly("orders");
    }
}
