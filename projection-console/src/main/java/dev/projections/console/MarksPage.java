package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.ErrorGroup;
import dev.projections.inspect.ErrorGroups;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkPage;
import dev.projections.inspect.MarkState;
import dev.projections.inspect.CappedCount;
import dev.projections.inspect.PageCursor;
import jakarta.faces.context.FacesContext;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pending and failing lists (docs/contract.md §12): one projection at a time, filtered by tenant and state, in due order,
 * paged by keyset (next/previous from the first or last row shown, never an offset), with a capped count. Filter and
 * position are the URL's ({@link MarkListQuery}), so a list page is a link to share. What an admin does to the list on
 * screen is {@link MarkListActions}.
 */
@Named("projectionsMarks")
@ViewScoped
public class MarksPage implements Serializable {

    public static final int PAGE_SIZE = 50;

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleClock clock;

    /** The list of the URL this view was opened with: paging links and actions keep to it. */
    private MarkListQuery query;
    /** The filter of the list on screen: paging and actions use it. */
    private MarkFilter applied;
    private MarkPage page;
    private ErrorGroups errors;
    /** The count the bulk buttons named when the page was drawn: an action on a list that changed since is refused. */
    private long countValue = -1;
    /** When the list was drawn: its bulk actions touch no mark parked after it. */
    private Instant drawnAt;
    private List<MarkLine> lines = List.of();
    private String count = "";
    private int pageNumber = 1;

    /**
     * Reads the list from the URL ({@link MarkListQuery}) once, before the view is drawn; a postback keeps it. A
     * position no list wrote (a cut or edited link) shows the first page and says so, rather than failing the page.
     */
    public void open() {
        Map<String, String> parameters = FacesContext.getCurrentInstance().getExternalContext()
                .getRequestParameterMap();
        query = MarkListQuery.from(parameters);
        if (query.projection() == null || !reads.projectionNames().contains(query.projection())) {
            String known = reads.projectionNames().stream().sorted().findFirst().orElse(null);
            if (known == null) {
                return;
            }
            query = query.withProjection(known).first();
        }
        if (query.cursorProblem() != null) {
            Text.error(Text.of("marks.bad-position", query.cursorProblem()));
            query = query.first();
        }
        applied = query.filter();
        showPage();
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

    /** A state filter in words; one the console does not know yet (a newer engine's) as its name reads. */
    public String stateLabel(String value) {
        return switch (MarkState.valueOf(value)) {
            case ANY -> Text.of("marks.filter.state.any");
            case DUE -> Text.of("marks.filter.state.due");
            case CLAIMED -> Text.of("marks.filter.state.claimed");
            case BACKING_OFF -> Text.of("marks.filter.state.backing-off");
            case PARKED -> Text.of("marks.filter.state.parked");
            case NOT_PARKED -> Text.of("marks.filter.state.not-parked");
            default -> value.toLowerCase(Locale.ROOT).replace('_', ' ');
        };
    }

    /**
     * The page the URL names. Marks come and go while an operator pages, and a shared link may be opened days later:
     * a page after a position with nothing left after it, or one before a position with nothing before it, is the
     * list's first page again.
     */
    private void showPage() {
        PageCursor cursor = query.cursor();
        MarkPage shown = cursor == null ? null : reads.page(applied, cursor, query.forward(), PAGE_SIZE);
        if (shown != null && query.forward() && shown.rows().isEmpty()) {
            Text.info(Text.of("marks.position-gone"));
            shown = null;
        }
        if (shown != null && !query.forward() && (shown.rows().isEmpty() || !shown.hasPrevious())) {
            shown = null;
        }
        if (shown == null) {
            query = query.first();
            shown = reads.page(applied, null, true, PAGE_SIZE);
        }
        pageNumber = query.page();
        page = shown;
        Instant now = clock.now();
        lines = shown.rows().stream().map(row -> new MarkLine(row, now)).toList();
        CappedCount counted = reads.count(applied);
        count = counted.display();
        countValue = counted.value();
        drawnAt = now;
        errors = showsFailures() ? reads.topErrors(applied) : null;
    }

    /** Failing or parked marks on screen: the page shows their top errors. */
    private boolean showsFailures() {
        return applied.failingOnly() || applied.state() == MarkState.PARKED || applied.state() == MarkState.BACKING_OFF;
    }

    /** The link to the page after the last row shown ({@code marks.xhtml?…&after=…&page=…}). */
    public String getNextUrl() {
        return page == null || page.last() == null ? "" : url(query.after(page.last(), pageNumber + 1));
    }

    /** The link to the page before the first row shown; from page 2, the first page itself. */
    public String getPreviousUrl() {
        if (page == null || page.first() == null) {
            return "";
        }
        return url(pageNumber <= 2 ? query.first() : query.before(page.first(), pageNumber - 1));
    }

    /** This list's first page: the URL to share for "these marks" rather than "this page of them". */
    public String getFirstUrl() {
        return query == null ? "marks.xhtml" : url(query.first());
    }

    private static String url(MarkListQuery list) {
        return "marks.xhtml?" + list.toQueryString();
    }

    /**
     * After an action: the same URL again (post, redirect, get), so the address bar keeps the shareable list, a reload
     * does not repeat the action, and the page shows the list as it is now, with the action's message.
     */
    void showAgain() {
        FacesContext faces = FacesContext.getCurrentInstance();
        faces.getExternalContext().getFlash().setKeepMessages(true);
        try {
            faces.getExternalContext().redirect(url(query));
        } catch (IOException e) {
            throw new UncheckedIOException("could not show the mark list again", e);
        }
        faces.responseComplete();
    }

    /** The filter of the list on screen, {@code null} before a list was read. */
    MarkFilter applied() {
        return applied;
    }

    /** How many marks the list held when drawn, as counted (the bulk buttons name it). */
    long countValue() {
        return countValue;
    }

    /** When the list was drawn: its bulk actions touch no mark parked after it. */
    Instant drawnAt() {
        return drawnAt;
    }

    /** The projection of the list on screen (buttons and headings), which the filter fields may not show yet. */
    public String getShownProjection() {
        return applied == null ? "" : applied.projection();
    }

    public boolean isShowingFailing() {
        return applied != null && applied.failingOnly();
    }

    /** The top errors of the failing or parked marks on screen, most frequent first; empty for other lists. */
    public List<ErrorGroup> getTopErrors() {
        return errors == null ? List.of() : errors.groups();
    }

    /** Said under the top errors when there were more failing marks than were read for them. */
    public String getTopErrorsScope() {
        return errors == null || errors.complete() ? "" : Text.of("marks.top-errors.scope", errors.read());
    }

    /** The list's state for a top error's link (its failing or parked marks whose error starts with the head). */
    public String getAppliedState() {
        return applied == null ? MarkState.ANY.name() : applied.state().name();
    }

    public String getAppliedTenant() {
        return applied == null ? null : applied.tenant();
    }

    /** What the list on screen is narrowed to by its error prefix, for its heading; empty without one. */
    public String getShownErrorPrefix() {
        return applied == null || applied.errorPrefix() == null ? "" : applied.errorPrefix();
    }

    public List<MarkLine> getLines() {
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

    /** The filter form's fields show the list on screen (a GET form: submitting it opens that list's URL). */
    public boolean isFormFailing() {
        return query != null && query.failingOnly();
    }

    public String getFormState() {
        return query == null ? MarkState.ANY.name() : query.state().name();
    }

    public boolean isFormAllTenants() {
        return query == null || query.tenant() == null;
    }

    /** The tenant of a one-tenant list, empty for all tenants. */
    public String getFormTenant() {
        return query == null || query.tenant() == null ? "" : query.tenant();
    }

    public String getFormError() {
        return query == null ? "" : query.errorPrefix();
    }
}
