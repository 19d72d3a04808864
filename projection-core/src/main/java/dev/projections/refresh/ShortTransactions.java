package dev.projections.refresh;

/**
 * The engine's short transactions: claims, acks of failures, releases, renewals, control-table reads and writes, each
 * given half a lease ({@link LeasePolicy#shortTransaction}), so that none outlives the claims it works on.
 */
final class ShortTransactions {

    private final Transactions transactions;
    private final LeasePolicy leases;

    ShortTransactions(Transactions transactions, LeasePolicy leases) {
        this.transactions = transactions;
        this.leases = leases;
    }

    /** Runs {@code work} in a short transaction of its own; a failure of it is a {@link DatabaseTroubleException}. */
    <T> T run(String what, Transactions.Work<T> work) {
        return Database.call(what, () -> transactions.inNewTransaction(leases.shortTransaction(), work));
    }

    /**
     * As {@link #run}, where the thread may be in a transaction of the caller's (a console action's): that one is
     * suspended meanwhile ({@link Transactions#inTransactionOfItsOwn}).
     */
    <T> T runOfItsOwn(String what, Transactions.Work<T> work) {
        return Database.call(what, () -> transactions.inTransactionOfItsOwn(leases.shortTransaction(), work));
    }

    /** As {@link #run}, throwing what failed as it is, for callers that decide themselves what a failure means. */
    <T> T runOrThrow(Transactions.Work<T> work) throws Exception {
        return transactions.inNewTransaction(leases.shortTransaction(), work);
    }
}
