package dev.projections.inspect;

import java.util.List;

/** One page of a mark list, in due order, and whether there are rows before and after it. */
public record MarkPage(List<MarkRow> rows, boolean hasPrevious, boolean hasNext) {

    public PageCursor first() {
        return rows.isEmpty() ? null : rows.get(0).cursor();
    }

    public PageCursor last() {
        return rows.isEmpty() ? null : rows.get(rows.size() - 1).cursor();
    }
}
