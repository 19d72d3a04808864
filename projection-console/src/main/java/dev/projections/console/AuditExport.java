package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.AuditEntry;
import jakarta.ejb.EJBAccessException;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Writer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET audit.csv?user=…&action=…&projection=…&from=…&to=…}: the audit log as the page filters it ({@link
 * AuditQuery}), newest first, as UTF-8 CSV with a header row ({@link CsvWriter}). Read page by page through {@link
 * ConsoleReads}, whose role check ({@code projection-viewer} or {@code projection-admin}) guards it like every other
 * read, and streamed as read, so memory stays one page whatever the log's size; at most {@value #MAX_ROWS} rows, the
 * newest (a time range reaches older ones). Behind the console's login: its path is not one of the open endpoints.
 */
public class AuditExport extends HttpServlet {

    static final int MAX_ROWS = 100_000;

    /**
     * The header row names the columns as data, not as UI text: a spreadsheet or script reading the export finds the
     * same names in every language, so they stay here in English rather than in the bundle.
     */
    private static final List<String> HEADER = List.of("id", "at", "user", "action", "projection", "tenant",
            "entity_id", "detail");

    @Inject
    ConsoleReads reads;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Map<String, String> parameters = new HashMap<>();
        request.getParameterMap().forEach((name, values) -> parameters.put(name, values[0]));
        // the console's pages are English (lang="en"); the export's messages are too
        Locale language = Locale.ENGLISH;
        AuditQuery query = AuditQuery.from(parameters, language);
        response.setHeader("Cache-Control", "no-store");
        if (query.filter() == null) {
            response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
            response.setContentType("text/plain");
            response.setCharacterEncoding("UTF-8");
            response.getWriter().write(String.join("\n", query.problems()) + "\n");
            return;
        }
        List<AuditEntry> page;
        try {
            page = reads.audit(query.filter(), null, ConsoleReads.AUDIT_PAGE);
        } catch (EJBAccessException denied) {
            response.sendError(HttpServletResponse.SC_FORBIDDEN, Text.of(language, "audit.export.denied"));
            return;
        }
        response.setContentType("text/csv");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Content-Disposition", "attachment; filename=\"projection-audit.csv\"");
        Writer out = response.getWriter();
        CsvWriter csv = new CsvWriter(out);
        csv.row(HEADER);
        int written = 0;
        while (!page.isEmpty() && written < MAX_ROWS) {
            for (AuditEntry entry : page.subList(0, Math.min(page.size(), MAX_ROWS - written))) {
                csv.row(Arrays.asList(String.valueOf(entry.id()), entry.at().toString(), entry.user(), entry.action(),
                        entry.projection(), entry.tenant(), entry.entityId(), entry.detail()));
                written++;
            }
            if (page.size() < ConsoleReads.AUDIT_PAGE) {
                break;
            }
            page = reads.audit(query.filter(), page.get(page.size() - 1).id(), ConsoleReads.AUDIT_PAGE);
        }
        out.flush();
    }
}
