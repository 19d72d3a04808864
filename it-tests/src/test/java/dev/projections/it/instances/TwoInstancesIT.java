package dev.projections.it.instances;

import static dev.projections.it.instances.FaultSetup.count;
import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Await;
import dev.projections.it.support.ServerProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two WildFly servers with the demo EAR on one PostgreSQL (docs/contract.md §3–§5, §8). Load in two tenants goes to both;
 * server B refreshes slowly, so it always holds claims; B is killed with SIGKILL. The marks B held wait for
 * their lease (10 s) and are then refreshed by A; nothing is lost, every read-model row equals what SQL computes
 * from the write tables, and no two refreshes of one key ever overlapped.
 */
class TwoInstancesIT {

    @Test
    void theSurvivorTakesOverAKilledServersMarksAfterTheirLeaseAndNothingIsLost() throws Exception {
        String url = FaultSetup.freshDatabase("projection_two_instances");
        Path ear = FaultSetup.ear();
        Path probe = FaultSetup.probeDir("two-instances-probe");
        try (ServerProcess a = new ServerProcess("node-a", 100, ear, FaultSetup.serverProperties(url, probe, 0));
             ServerProcess b = new ServerProcess("node-b", 200, ear, FaultSetup.serverProperties(url, probe, 150))) {
            a.start(); // first alone: it creates the schema
            b.start();
            Load load = new Load(List.of(a, b), 4);
            List<Held> held;
            try {
                Await.until("both servers committed changes", Duration.ofSeconds(60), () -> load.committed() >= 60);
                // claims of B's own (claimed_by names the instance): any claim at all could have been A's alone
                Await.until("server B holds claims", Duration.ofSeconds(30), () -> count(url,
                        "SELECT COUNT(*) FROM probe_window WHERE node = 'node-b'") > 0 && count(url,
                        "SELECT COUNT(*) FROM projection_pending WHERE claimed_until > now() AND claimed_by = 'node-b'") > 0);
                load.only(a);
                b.kill();
            } finally {
                // stopped for a moment, so that what is still claimed two seconds later is B's: A's own claims
                // are short (no delay) and its drainers have emptied them by then
                load.close();
            }
            Thread.sleep(2000);
            held = heldClaims(url);
            assertThat(held).as("marks the killed server held").isNotEmpty();

            Load more = new Load(List.of(a), 2);
            long before = more.committed();
            Await.until("more changes on the survivor", Duration.ofSeconds(30), () -> more.committed() >= before + 20);
            more.close();

            Await.until("every mark refreshed by the survivor", Duration.ofMinutes(2),
                    () -> count(url, FaultSetup.PENDING) == 0);
            assertThat(count(url, FaultSetup.ORDER_SEARCH_WRONG)).as("order_search rows unlike the write tables").isZero();
            assertThat(count(url, FaultSetup.CUSTOMER_STATS_WRONG)).as("customer_stats rows unlike the write tables")
                    .isZero();
            assertThat(count(url, FaultSetup.PROBE_WRONG)).as("probe rows unlike their source").isZero();
            assertThat(count(url, FaultSetup.OVERLAPS)).as("overlapping refreshes of one key").isZero();
            assertThat(count(url, "SELECT COUNT(DISTINCT node) FROM probe_window")).isEqualTo(2);
            for (Held mark : held) {
                if (mark.projection().equals(ProbeProjection.NAME)) {
                    assertThat(count(url, ("SELECT COUNT(*) FROM probe_window WHERE node = 'node-a' AND tenant_id = '%s'"
                            + " AND id = '%s' AND started_at >= TIMESTAMPTZ '%s'").formatted(mark.tenant(), mark.id(),
                            mark.leaseUntil()))).as("%s refreshed by the survivor once its lease lapsed", mark).isPositive();
                }
            }
            assertThat(count(url, "SELECT COUNT(*) FROM orders")).isPositive();

            long changes = load.changes() + more.changes();
            long refreshed = Figures.refreshes(a.url("/projections/metrics"), "success");
            long repeated = Figures.refreshes(a.url("/projections/metrics"), "repeated");
            Figures.report("two servers: " + changes + " changes committed, 1 SIGKILL, " + held.size()
                    + " marks held by the killed server taken over after their lease, " + refreshed
                    + " refreshes by the survivor (" + repeated + " repeated), " + count(url,
                    "SELECT COUNT(*) FROM probe_window WHERE node = 'node-b'")
                    + " probe refreshes committed by the killed one, 0 overlapping, 0 lost");
        }
    }

    record Held(String projection, String tenant, String id, java.time.OffsetDateTime leaseUntil) {
    }

    /** Marks claimed right now, with a lease still running. */
    private static List<Held> heldClaims(String url) throws Exception {
        List<Held> marks = new ArrayList<>();
        try (Connection connection = FaultSetup.connect(url); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT projection, tenant_id, entity_id, claimed_until FROM projection_pending"
                             + " WHERE claimed_until > now()")) {
            while (rows.next()) {
                marks.add(new Held(rows.getString(1), rows.getString(2), rows.getString(3),
                        rows.getObject(4, java.time.OffsetDateTime.class)));
            }
        }
        return marks;
    }
}
