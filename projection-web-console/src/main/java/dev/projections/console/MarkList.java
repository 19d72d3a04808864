package dev.projections.console;

import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkPage;
import dev.projections.inspect.MarkRow;
import dev.projections.inspect.MarkState;
import dev.projections.inspect.PageCursor;
import jakarta.ejb.EJB;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The pending and failing lists (SPEC §12): one projection at a time, filtered by tenant and state, in due order,
 * paged by keyset (next/previous from the first or last row shown, never an offset), with a capped count.
 */
@Named
@ViewScoped
public class MarkList implements Serializable {

    public static final int PAGE_SIZE = 50;

    /** One mark's line. */
    public static final class Line implements Serializable {
        private final MarkRow row;
        private final Instant now;

        Line(MarkRow row, Instant now) {
            this.row = row;
            this.now = now;
        }

        public String getTenant() {
            return row.tenant();
        }

        public String getTenantShown() {
            return row.tenant().isEmpty() ? "–" : row.tenant();
        }

        public String getId() {
            return row.id();
        }

        public String getState() {
            if (row.claimedUntil() != null && row.claimedUntil().isAfter(now)) {
                return "claimed";
            }
            if (row.availableAt().isAfter(now)) {
                return row.attempts() > 0 ? "backing off" : "waiting";
            }
            return "due";
        }

        public String getDue() {
            return Format.relative(row.availableAt(), now);
        }

        public String getDueExact() {
            return Format.exact(row.availableAt());
        }

        public String getMarked() {
            return Format.relative(row.firstMarkedAt(), now);
        }

        public String getMarkedExact() {
            return Format.exact(row.firstMarkedAt()) + ", " + Format.number(row.markCount()) + " marks";
        }

        public String getAttempts() {
            return Format.number(row.attempts());
        }

        public boolean isFailing() {
            return row.attempts() > 0;
        }

        public String getLastFailed() {
            return Format.relative(row.lastFailedAt(), now);
        }

        public String getLastFailedExact() {
            return Format.exact(row.lastFailedAt());
        }

        public String getLastError() {
            return row.lastError() == null ? "" : row.lastError();
        }

        public String getShortError() {
            String error = getLastError();
            int newline = error.indexOf('\n');
            String first = newline < 0 ? error : error.substring(0, newline);
            return first.length() <= 80 ? first : first.substring(0, 80) + "…";
        }

        public String getPriority() {
            return row.priority() == 0 ? "live" : "rebuild";
        }
    }

    @EJB
    ConsoleReads reads;

    @EJB
    ConsoleAdmin admin;

    private String projection;
    private String tenant = "";
    private boolean allTenants = true;
    private String state = MarkState.ANY.name();
    private boolean failingOnly;

    private MarkPage page;
    private List<Line> lines = List.of();
    private String count = "";
    private int pageNumber = 1;

    /** The view's parameters ({@code ?projection=…&failing=true}) are read once, before the first page. */
    public void open() {
        if (projection == null || !reads.projectionNames().contains(projection)) {
            projection = reads.projectionNames().stream().sorted().findFirst().orElse(null);
        }
        if (page == null && projection != null) {
            first();
        }
    }

    public List<String> getProjections() {
        return reads.projectionNames().stream().sorted().toList();
    }

    public List<String> getStates() {
        List<String> states = new ArrayList<>();
        for (MarkState value : MarkState.values()) {
            states.add(value.name());
        }
        return states;
    }

    public String stateLabel(String value) {
        return value.equals(MarkState.ANY.name()) ? "any state" : value.toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    private MarkFilter filter() {
        return new MarkFilter(projection, allTenants ? null : tenant == null ? "" : tenant.trim(),
                MarkState.valueOf(state), failingOnly);
    }

    /** "Apply" and the first page. */
    public void first() {
        pageNumber = 1;
        show(reads.page(filter(), null, true, PAGE_SIZE));
        count = reads.count(filter()).display();
    }

    public void next() {
        if (page != null && page.hasNext()) {
            PageCursor last = page.last();
            MarkPage nextPage = reads.page(filter(), last, true, PAGE_SIZE);
            pageNumber++;
            show(nextPage);
        }
    }

    public void previous() {
        if (page != null && page.hasPrevious()) {
            MarkPage previousPage = reads.page(filter(), page.first(), false, PAGE_SIZE);
            pageNumber = Math.max(1, pageNumber - 1);
            if (!previousPage.hasPrevious()) {
                pageNumber = 1;
            }
            show(previousPage);
        }
    }

    private void show(MarkPage shown) {
        page = shown;
        Instant now = Instant.now();
        lines = shown.rows().stream().map(row -> new Line(row, now)).toList();
    }

    /** Retries one failing mark, then shows the current page again from its first row. */
    public void retry(String markTenant, String id) {
        Messages.run(() -> admin.retry(projection, markTenant, id), "mark " + id + " of " + projection
                + (markTenant.isEmpty() ? "" : " (tenant " + markTenant + ")") + " is due again");
        reloadPage();
    }

    /** Retries every failing mark of the projection shown. */
    public void retryAll() {
        Messages.run(() -> admin.retryFailed(projection), retried -> retried + " failing marks of " + projection
                + " are due again");
        reloadPage();
    }

    private void reloadPage() {
        PageCursor before = page == null || pageNumber == 1 ? null : page.first();
        if (before == null) {
            first();
        } else {
            // the page that starts where this one started: everything after the row before it
            MarkPage current = reads.page(filter(), before, false, 1);
            show(current.rows().isEmpty() ? reads.page(filter(), null, true, PAGE_SIZE)
                    : reads.page(filter(), current.first(), true, PAGE_SIZE));
            count = reads.count(filter()).display();
        }
    }

    public List<Line> getLines() {
        return lines;
    }

    public boolean isHasNext() {
        return page != null && page.hasNext();
    }

    public boolean isHasPrevious() {
        return page != null && page.hasPrevious();
    }

    public String getCount() {
        return count;
    }

    public int getPageNumber() {
        return pageNumber;
    }

    public String getProjection() {
        return projection;
    }

    public void setProjection(String projection) {
        this.projection = projection;
    }

    public String getTenant() {
        return tenant;
    }

    public void setTenant(String tenant) {
        this.tenant = tenant;
    }

    public boolean isAllTenants() {
        return allTenants;
    }

    public void setAllTenants(boolean allTenants) {
        this.allTenants = allTenants;
    }

    public String getState() {
        return state;
    }

    public void setState(String state) {
        this.state = state;
    }

    public boolean isFailingOnly() {
        return failingOnly;
    }

    public void setFailingOnly(boolean failingOnly) {
        this.failingOnly = failingOnly;
    }
}
