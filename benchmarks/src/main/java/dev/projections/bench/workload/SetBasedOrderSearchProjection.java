package dev.projections.bench.workload;

import dev.projections.refresh.JdbcTransactions;
import java.util.List;

/** {@code order-search} with a set-based {@code refreshAll}: one statement for the whole batch, like the demo's. */
public class SetBasedOrderSearchProjection extends OrderSearchProjection {

    @Override
    public void refreshAll(List<String> ids) throws Exception {
        OrderSearchSql.refreshAll(JdbcTransactions.current(), OrderSearchSql.parse(ids));
    }
}
