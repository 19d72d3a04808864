package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.AuditEntry;
import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;

/**
 * The audit log, newest first, 50 at a time ("older" continues below the last id shown), filtered by user, action,
 * projection and time range: every page and filter a GET URL ({@link AuditQuery}), and the filtered log as CSV.
 */
@Named("projectionsAudit")
@RequestScoped
public class AuditPage implements Serializable {

    static final int PAGE = 50;

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleClock clock;

    private AuditQuery query;
    private List<AuditEntry> entries;

    /** Reads the filter and position from the URL, names what it could not read, and reads one page. */
    public void open() {
        FacesContext faces = FacesContext.getCurrentInstance();
        query = AuditQuery.from(faces.getExternalContext().getRequestParameterMap(), faces.getViewRoot().getLocale());
        query.problems().forEach(Text::error);
        entries = query.filter() == null ? List.of() : reads.audit(query.filter(), query.before(), PAGE);
    }

    public List<AuditLine> getLines() {
        Instant now = clock.now();
        return entries == null ? List.of() : entries.stream().map(entry -> new AuditLine(entry, now)).toList();
    }

    public boolean isHasOlder() {
        return entries != null && entries.size() == PAGE;
    }

    public boolean isFiltered() {
        return query != null && !query.filterQueryString().isEmpty();
    }

    /** The page below the last entry shown, with the same filter: a URL like every other page of the log. */
    public String getOlderUrl() {
        return isHasOlder() ? url("audit.xhtml", "before=" + entries.get(entries.size() - 1).id()) : "";
    }

    public String getNewestUrl() {
        return url("audit.xhtml", "");
    }

    /** The CSV export of the filtered log (every page of it, newest first, up to its bound). */
    public String getExportUrl() {
        return url("audit.csv", "");
    }

    private String url(String path, String position) {
        String filter = query == null ? "" : query.filterQueryString();
        String parameters = filter.isEmpty() ? position : position.isEmpty() ? filter : filter + "&" + position;
        return parameters.isEmpty() ? path : path + "?" + parameters;
    }

    /** The filter form's fields, as typed. */
    public String getUser() {
        return query == null ? "" : query.user();
    }

    public String getAction() {
        return query == null ? "" : query.action();
    }

    public String getProjection() {
        return query == null ? "" : query.projection();
    }

    public String getFrom() {
        return query == null ? "" : query.fromText();
    }

    public String getTo() {
        return query == null ? "" : query.toText();
    }
}
