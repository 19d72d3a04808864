package dev.projections.inspect;

/** The state filter of the mark lists (docs/contract.md §12), each a condition on the row at a given instant. */
public enum MarkState {
    /** Every mark. */
    ANY(""),
    /** Due and not leased: the next claim may take it. */
    DUE(" AND available_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)"),
    /** Leased by a worker right now. */
    CLAIMED(" AND claimed_until > ?"),
    /** Failed and waiting for its next retry. */
    BACKING_OFF(" AND attempts > 0 AND available_at > ? AND parked_at IS NULL"),
    /** Failed for good: never retried until an operator resumes or skips it. */
    PARKED(" AND parked_at IS NOT NULL"),
    /** Anything but parked: with the failing list, the marks "retry all failing" makes due. */
    NOT_PARKED(" AND parked_at IS NULL");

    final String condition;

    MarkState(String condition) {
        this.condition = condition;
    }

    int parameters() {
        return (int) condition.chars().filter(c -> c == '?').count();
    }
}
