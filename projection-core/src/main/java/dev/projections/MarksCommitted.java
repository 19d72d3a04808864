package dev.projections;

import java.util.Set;

/**
 * CDI event fired once per transaction after it committed successfully, with the keys it marked. The
 * engine hands them to its refreshers; applications may observe it too. It is a plain (synchronous,
 * non-transactional) event fired from Hibernate's after-completion: a transactional observer fired from
 * the flush path would be silently dropped by Weld (docs/pitfalls.md #10).
 */
public record MarksCommitted(Set<MarkKey> keys) {

    public MarksCommitted {
        keys = Set.copyOf(keys);
    }
}
