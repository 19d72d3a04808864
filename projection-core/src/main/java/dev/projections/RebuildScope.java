package dev.projections;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which ids a rebuild run marks (docs/contract.md §7): everything, or the ids that meet every condition given — an
 * inclusive id range ({@code from}, {@code to}, either may be open), a "changed since" instant, a named filter
 * {@code name=value} the projection understands. A projection applies a scope in
 * {@link Projection#ids(String, int, RebuildScope)} and says which kinds it understands in
 * {@link Projection#rebuildScopes()}; a run whose scope it does not understand is refused before it starts.
 */
public record RebuildScope(String from, String to, Instant changedSince, String filter) {

    /** The conditions a scope may carry. */
    public enum Kind { ID_RANGE, CHANGED_SINCE, FILTER }

    private static final RebuildScope EVERYTHING = new RebuildScope(null, null, null, null);

    public RebuildScope {
        from = blankToNull(from, "from");
        to = blankToNull(to, "to");
        filter = blankToNull(filter, "filter");
        if (filter != null && !filter.matches("[A-Za-z0-9_.-]+=.*")) {
            throw new IllegalArgumentException("a rebuild filter reads name=value, was \"" + filter + "\"");
        }
    }

    private static String blankToNull(String value, String what) {
        if (value == null || value.isBlank()) {
            return null;
        }
        if (value.length() > MarkKey.MAX_ID_LENGTH || value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a rebuild scope's " + what + " must be at most "
                    + MarkKey.MAX_ID_LENGTH + " printable characters, was \"" + value + "\"");
        }
        return value;
    }

    public static RebuildScope everything() {
        return EVERYTHING;
    }

    /** The ids from {@code from} to {@code to}, both inclusive, in the projection's id order; {@code null}: open. */
    public static RebuildScope idRange(String from, String to) {
        if (from == null && to == null) {
            throw new IllegalArgumentException("an id range needs from, to or both");
        }
        return new RebuildScope(from, to, null, null);
    }

    /** The ids whose source changed at or after {@code since}, as the projection can tell. */
    public static RebuildScope changedSince(Instant since) {
        return new RebuildScope(null, null, Objects.requireNonNull(since, "since"), null);
    }

    /** The ids a filter of the projection selects, e.g. {@code filter("region", "EU")}. */
    public static RebuildScope filter(String name, String value) {
        return new RebuildScope(null, null, null, name + "=" + (value == null ? "" : value));
    }

    /** The same scope with an upper bound: the last id of one partition. */
    public RebuildScope withTo(String upTo) {
        return new RebuildScope(from, upTo, changedSince, filter);
    }

    public boolean isEverything() {
        return kinds().isEmpty();
    }

    /** The kinds of condition this scope carries; empty for everything. */
    public Set<Kind> kinds() {
        Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        if (from != null || to != null) {
            kinds.add(Kind.ID_RANGE);
        }
        if (changedSince != null) {
            kinds.add(Kind.CHANGED_SINCE);
        }
        if (filter != null) {
            kinds.add(Kind.FILTER);
        }
        return kinds;
    }

    /** The filter's name, before the {@code =}; {@code null} without a filter. */
    public String filterName() {
        return filter == null ? null : filter.substring(0, filter.indexOf('='));
    }

    /** The filter's value, after the {@code =}; {@code null} without a filter. */
    public String filterValue() {
        return filter == null ? null : filter.substring(filter.indexOf('=') + 1);
    }

    /** For people: "everything", "ids 100..200", "changed since 2026-…", "region=EU", joined by " and ". */
    @Override
    public String toString() {
        if (isEverything()) {
            return "everything";
        }
        List<String> parts = new ArrayList<>();
        if (from != null || to != null) {
            parts.add("ids " + (from == null ? "" : from) + ".." + (to == null ? "" : to));
        }
        if (changedSince != null) {
            parts.add("changed since " + changedSince);
        }
        if (filter != null) {
            parts.add(filter);
        }
        return String.join(" and ", parts);
    }
}
