package dev.projections.console;

import dev.projections.ParkedSelection;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkState;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;

/**
 * What an admin does to the mark list on screen ({@link MarksPage}): a row's Retry, Resume and Skip, and the bulk
 * buttons below the list, which name the count they act on and refuse when the list changed since it was drawn. Each
 * posts to the view (server-side state, the protection against forged requests) and then shows the same URL again.
 */
@Named("projectionsMarkListActions")
@ViewScoped
public class MarkListActions implements Serializable {

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleAdmin admin;

    @Inject
    MarksPage list;

    /** Counted once, when the button is first drawn: the label and the action agree on the list the operator saw. */
    private String retryCount;

    /** Retries one failing mark of the list on screen, then shows the same URL's list again. */
    public void retry(String markTenant, String id) {
        MarkFilter applied = list.applied();
        if (applied == null) {
            return;
        }
        String shown = applied.projection();
        Text.act(() -> admin.retry(shown, markTenant, id), markTenant.isEmpty()
                ? Text.of("marks.retried", id, shown) : Text.of("marks.retried.tenant", id, shown, markTenant));
        list.showAgain();
    }

    /** Resumes one parked mark of the list on screen (due now, attempts kept). */
    public void resumeParked(String markTenant, String id) {
        if (list.applied() != null) {
            onParked(ParkedSelection.mark(list.applied().projection(), markTenant, id), true);
        }
    }

    /** Skips (deletes) one parked mark of the list on screen; the page asked for confirmation. */
    public void skipParked(String markTenant, String id) {
        if (list.applied() != null) {
            onParked(ParkedSelection.mark(list.applied().projection(), markTenant, id), false);
        }
    }

    /** Resumes every parked mark of the list on screen: the projection's, or its tenant's when one is chosen. */
    public void resumeAllParked() {
        if (listUnchanged()) {
            onParked(shownParked(), true);
        }
    }

    /** Skips every parked mark of the list on screen; the page named the count and asked for confirmation. */
    public void skipAllParked() {
        if (listUnchanged()) {
            onParked(shownParked(), false);
        }
    }

    /**
     * Whether the list still holds as many marks as its bulk buttons named: an operator confirmed "skip these 3", so
     * a fourth parked meanwhile must not be skipped unseen. When it changed, the list is drawn again with its count.
     */
    private boolean listUnchanged() {
        MarkFilter applied = list.applied();
        if (applied == null) {
            return false;
        }
        long now = reads.count(applied).value();
        if (now != list.countValue()) {
            Text.error(Text.of("marks.changed", list.countValue(), now));
            list.showAgain();
            return false;
        }
        return true;
    }

    /** The parked marks of the list on screen: its projection, and its tenant and error prefix when chosen. */
    private ParkedSelection shownParked() {
        MarkFilter applied = list.applied();
        if (applied == null) {
            return null;
        }
        return new ParkedSelection(applied.projection(), applied.tenant(), null, applied.errorPrefix())
                .parkedBy(list.drawnAt());
    }

    private void onParked(ParkedSelection selection, boolean resume) {
        if (list.applied() == null || selection == null) {
            return;
        }
        if (resume) {
            Text.act(() -> admin.resumeParked(selection), n -> Text.of("marks.resumed", n, selection.projection()));
        } else {
            Text.act(() -> admin.skipParked(selection), n -> Text.of("marks.skipped", n, selection.projection()));
        }
        list.showAgain();
    }

    /** Whether the list on screen is of parked marks, so the page offers the bulk actions. */
    public boolean isShowingParked() {
        MarkFilter applied = list.applied();
        return applied != null && applied.state() == MarkState.PARKED;
    }

    /**
     * Whether "Retry all" is offered: on the projection's whole failing list only, so that the count it names is the
     * number of marks it retries (a list narrowed by tenant, state or error would show fewer than it touches).
     */
    public boolean isOffersRetryAll() {
        MarkFilter applied = list.applied();
        return applied != null && applied.failingOnly() && applied.tenant() == null && applied.errorPrefix() == null
                && (applied.state() == MarkState.ANY || applied.state() == MarkState.NOT_PARKED);
    }

    /** How many marks "Retry all" makes due: the projection's failing marks that are not parked. */
    public String getRetryCount() {
        if (retryCount == null) {
            retryCount = isOffersRetryAll()
                    ? reads.count(list.applied().withState(MarkState.NOT_PARKED)).display() : "";
        }
        return retryCount;
    }

    /** The bulk buttons' labels name the count they act on, as the list shows it (capped: "1,000+"). */
    public String getRetryAllLabel() {
        return Text.of("marks.retry-all", getRetryCount());
    }

    public String getResumeAllLabel() {
        return Text.of("marks.resume-all", list.getCount());
    }

    public String getSkipAllLabel() {
        return Text.of("marks.skip-all", list.getCount());
    }

    /** What "Skip these … parked marks…" asks before it deletes them. */
    public String getSkipAllQuestion() {
        return Text.of("marks.skip-all.confirm", list.getCount());
    }

    /** Retries every failing mark of the projection on screen. */
    public void retryAll() {
        if (!isOffersRetryAll()) {
            return;
        }
        String shown = list.applied().projection();
        Text.act(() -> admin.retryFailed(shown), retried -> Text.of("action.retried", retried, shown));
        list.showAgain();
    }
}
