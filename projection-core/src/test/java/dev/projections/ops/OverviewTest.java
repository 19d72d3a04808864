package dev.projections.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.EngineHealth;
import dev.projections.MarkKey;
import dev.projections.ProjectionStatus;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The overview and the health answer (docs/contract.md §12), on H2 without a server. */
class OverviewTest {

    @Test
    void everyDeployedProjectionIsListedWithItsCountsLastErrorPauseAndSuspension() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-overview");
        db.mark("orders", "1");
        MarkKey failing = db.mark("orders", "2");
        db.fail(failing, 2, "boom", false);
        db.pauses().suspend("customers", "search cluster down", "alice");

        List<ProjectionStatus> statuses = db.overview(Clock.systemUTC()).overview("");

        assertThat(statuses).extracting(ProjectionStatus::projection).containsExactly("customers", "orders");
        ProjectionStatus orders = statuses.get(1);
        assertThat(orders.pending()).isEqualTo(2);
        assertThat(orders.failing()).isEqualTo(1);
        assertThat(orders.lastError()).isEqualTo("boom");
        assertThat(orders.paused()).isFalse();
        ProjectionStatus customers = statuses.get(0);
        assertThat(customers.pending()).isZero();
        assertThat(customers.paused()).isTrue();
        assertThat(customers.suspendedReason()).isEqualTo("search cluster down");
    }

    @Test
    void healthyWhileTheSweepRunsAndSuspensionsAreListedApartFromPauses() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-health");
        db.pauses().pause("orders", "alice");
        db.pauses().suspend("customers", "backend down", "alice");
        db.stats.sweepRan();

        EngineHealth health = db.overview(Clock.systemUTC()).health();

        assertThat(health.healthy()).as(String.valueOf(health.problem())).isTrue();
        assertThat(health.pausedProjections()).containsExactly("orders");
        assertThat(health.suspendedProjections()).containsEntry("customers", "backend down");
    }

    @Test
    void unhealthyWhenNoSweepRanFor3IntervalsOrTheDatabaseIsGoneButNotWhenThePoolIsOnlyExhausted()
            throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-health-down");
        Clock anHourOn = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));
        assertThat(db.overview(anHourOn).health().problem()).isEqualTo("no sweep has run since start-up");
        db.stats.sweepRan();
        assertThat(db.overview(anHourOn).health().problem())
                .isEqualTo("the last sweep is older than 3 x projection.sweep-interval");

        EngineHealth gone = db.overview(failing(new SQLException("Connection refused")), Clock.systemUTC()).health();
        assertThat(gone.healthy()).isFalse();
        assertThat(gone.problem()).isEqualTo("database unreachable: Connection refused");

        EngineHealth busy = db.overview(failing(new SQLTransientConnectionException("no connection in 30s")),
                Clock.systemUTC()).health();
        assertThat(busy.healthy()).isTrue();
        assertThat(busy.problem()).startsWith("connection pool exhausted");
    }

    private static DataSource failing(SQLException failure) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        throw failure;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
