package dev.projections.store;

/** What an ack found (docs/contract.md §4 step 4). */
public enum AckOutcome {
    /** The mark was unchanged since the claim and is gone. */
    SUCCESS,
    /** The key changed during the refresh (or the claim was lost): it is marked again and due at once. */
    REPEATED
}
