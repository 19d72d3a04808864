package dev.projections.inspect;

import java.util.List;

/**
 * The top error groups of a list (docs/contract.md §12), from the last errors of {@code read} failing marks; when not
 * {@code complete}, more failing marks exist than were read and the counts are of the first ones only.
 */
public record ErrorGroups(List<ErrorGroup> groups, int read, boolean complete) {

    public ErrorGroups {
        groups = List.copyOf(groups);
    }
}
