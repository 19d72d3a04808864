package dev.projections.bench;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table: the first {@code labelColumns} columns left-aligned, the figures right-aligned. */
public final class TextTable {

    private final List<String> header;
    private final int labelColumns;
    private final List<List<String>> rows = new ArrayList<>();

    public TextTable(int labelColumns, String... header) {
        this.labelColumns = labelColumns;
        this.header = List.of(header);
    }

    public void row(String... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("a row of " + cells.length + " cells in a table of " + header.size());
        }
        rows.add(List.of(cells));
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public String render() {
        int[] widths = new int[header.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = header.get(c).length();
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, header, widths);
        StringBuilder rule = new StringBuilder();
        for (int c = 0; c < widths.length; c++) {
            rule.append(c == 0 ? "" : "  ").append("-".repeat(widths[c]));
        }
        out.append(rule).append('\n');
        for (List<String> row : rows) {
            line(out, row, widths);
        }
        return out.toString();
    }

    private void line(StringBuilder out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < cells.size(); c++) {
            String cell = cells.get(c);
            String pad = " ".repeat(widths[c] - cell.length());
            line.append(c == 0 ? "" : "  ").append(c < labelColumns ? cell + pad : pad + cell);
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }
}
