package dev.projections.console;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * Rows as CSV (RFC 4180): fields separated by commas, lines ended by CRLF, a field quoted when it holds a comma, a
 * quote, CR or LF, quotes inside doubled. Spreadsheets run a cell that starts with {@code = + - @} (or a tab or CR,
 * which some strip first) as a formula — and audit cells carry text an operator or an error message chose — so such a
 * cell gets a leading apostrophe, which spreadsheets show as text and do not evaluate (OWASP, "CSV injection"). A
 * reader that wants the exact text drops one leading apostrophe from a cell whose next character is one of those.
 */
public final class CsvWriter {

    private final Writer out;

    public CsvWriter(Writer out) {
        this.out = out;
    }

    public void row(List<String> fields) throws IOException {
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            out.write(field(fields.get(i)));
        }
        out.write("\r\n");
    }

    /** One field as written: neutralised, then quoted if needed; {@code null} is the empty field. */
    static String field(String value) {
        if (value == null || value.isEmpty()) {
            return "";
        }
        String cell = startsAFormula(value) ? "'" + value : value;
        boolean quoted = cell.indexOf(',') >= 0 || cell.indexOf('"') >= 0 || cell.indexOf('\r') >= 0
                || cell.indexOf('\n') >= 0;
        return quoted ? '"' + cell.replace("\"", "\"\"") + '"' : cell;
    }

    private static boolean startsAFormula(String value) {
        char first = value.charAt(0);
        return first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' || first == '\r';
    }
}
