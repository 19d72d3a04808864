package dev.projections.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * What one scenario printed and what the smoke test checks: every figure it measured, how many read-model rows
 * differed from the write model after its drains, and any problem it saw (marks left, an engine warning).
 */
public final class ScenarioReport {

    private final String title;
    private final List<TextTable> tables = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private final List<Double> figures = new ArrayList<>();
    private long readModelDifferences;
    private int checks;

    public ScenarioReport(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }

    public void table(TextTable table) {
        tables.add(table);
    }

    public void note(String note) {
        notes.add(note);
    }

    public void problem(String problem) {
        problems.add(problem);
    }

    /** Records the figures of a series, so the smoke test can see that each is a number. */
    public void figures(Series... series) {
        for (Series s : series) {
            figures.addAll(s.values());
        }
    }

    /** One read-model comparison after a drain, and the rows that differed. */
    public void readModelChecked(String phase, long differences) {
        checks++;
        readModelDifferences += differences;
        if (differences != 0) {
            problems.add("read model NOT exact after " + phase + ": " + differences + " rows differ");
        }
    }

    public List<Double> figures() {
        return List.copyOf(figures);
    }

    public long readModelDifferences() {
        return readModelDifferences;
    }

    public int readModelChecks() {
        return checks;
    }

    public List<String> problems() {
        return List.copyOf(problems);
    }

    public String render() {
        StringBuilder out = new StringBuilder();
        out.append('\n').append("== ").append(title).append(" ==").append('\n');
        for (TextTable table : tables) {
            out.append(table.render()).append('\n');
        }
        for (String note : notes) {
            out.append("  ").append(note).append('\n');
        }
        out.append("  read model: ").append(readModelDifferences == 0
                ? "exact after every drain (" + checks + " checks)"
                : readModelDifferences + " rows differed over " + checks + " checks").append('\n');
        for (String problem : problems) {
            out.append("  PROBLEM: ").append(problem).append('\n');
        }
        return out.toString();
    }
}
