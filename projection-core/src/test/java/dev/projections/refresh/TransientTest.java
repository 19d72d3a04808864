package dev.projections.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class TransientTest {

    @Test
    void lockWaitsThatRanOutAreTransientOnPostgresqlAndMariaDb() {
        assertThat(Transient.is(new IllegalStateException(new SQLException("canceling statement due to lock timeout",
                "55P03")))).isTrue();
        assertThat(Transient.is(new SQLException("Lock wait timeout exceeded; try restarting transaction", "HY000",
                1205))).isTrue();
    }

    @Test
    void onlyPostgresqlsLockTimeoutIsALockTimeoutWhateverItsWrapping() {
        assertThat(Transient.isLockTimeout(new DatabaseTroubleException("claim failed",
                new SQLException("canceling statement due to lock timeout", "55P03")))).isTrue();
        assertThat(Transient.isLockTimeout(new SQLException("Lock wait timeout exceeded; try restarting transaction",
                "HY000", 1205))).as("MariaDB's, which the engine does not shorten").isFalse();
        assertThat(Transient.isLockTimeout(new SQLException("deadlock detected", "40P01"))).isFalse();
        assertThat(Transient.isLockTimeout(new SQLException("I/O error", "08006"))).isFalse();
    }

    @Test
    void aStatementRefusedBecauseTheServersReaperRolledTheTransactionBackIsTransient() {
        assertThat(Transient.is(new SQLException("IJ031070: Transaction cannot proceed: STATUS_ROLLEDBACK"))).isTrue();
    }

    @Test
    void aWrongStatementOrAnApplicationErrorIsNot() {
        assertThat(Transient.is(new SQLException("syntax error", "42601"))).isFalse();
        assertThat(Transient.is(new SQLException("other", "HY000", 1064))).isFalse();
        assertThat(Transient.is(new IllegalStateException("no such tenant"))).isFalse();
    }
}
