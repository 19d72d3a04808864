package dev.projections.bench.workload;

import dev.projections.Verifiable;
import dev.projections.refresh.JdbcTransactions;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;

/** The set-based {@code order-search} that can also be verified: one statement per page, as the demo's. */
public class VerifiableOrderSearchProjection extends SetBasedOrderSearchProjection implements Verifiable {

    @Override
    public Set<String> drifted(List<String> ids) throws SQLException {
        return OrderSearchSql.drifted(JdbcTransactions.current(), OrderSearchSql.parse(ids));
    }

    @Override
    public List<String> readModelIds(String after, int limit) {
        try {
            return OrderSearchSql.readModelIds(JdbcTransactions.current(), after == null ? Long.MIN_VALUE
                    : Long.parseLong(after), limit);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
