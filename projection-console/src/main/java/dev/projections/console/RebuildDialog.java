package dev.projections.console;

import dev.projections.RebuildScope;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The overview's confirmation panel: a rebuild (which tenants, and the scope and partitions where the projection
 * offers them), a clear-and-rebuild, a verification (which tenants, and the id range), or a purge of orphaned marks,
 * each done only after "Yes". The runs it starts are
 * handed to the {@link OverviewPage}, which shows their progress.
 */
@Named("projectionsRebuildDialog")
@ViewScoped
public class RebuildDialog implements Serializable {

    /** What the panel asks about. */
    public enum Question { REBUILD, CLEAR_AND_REBUILD, PURGE, VERIFY }

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleAdmin admin;

    @Inject
    OverviewPage overview;

    @Inject
    ConsoleUser user;

    private Question question;
    private String projection;
    private Set<RebuildScope.Kind> offeredScopes = Set.of();
    private List<String> offeredFilters = List.of();
    private String scopeFrom;
    private String scopeTo;
    private String scopeSince;
    private String scopeFilterName;
    private String scopeFilterValue;
    private int partitions = 1;
    private String rebuildTenant = TenantChoice.ALL;

    public void askRebuild(String projection) {
        ask(Question.REBUILD, projection);
    }

    public void askClearAndRebuild(String projection) {
        ask(Question.CLEAR_AND_REBUILD, projection);
    }

    public void askPurge(String projection) {
        ask(Question.PURGE, projection);
    }

    /** A verification (docs/design.md D57), with the tenants and the id range a rebuild offers. */
    public void askVerify(String projection) {
        ask(Question.VERIFY, projection);
    }

    private String verifyRequested;

    /** {@code index.xhtml?verify=<name>}: the projection page's "Verify…" link, which opens this panel. */
    public String getVerifyRequested() {
        return verifyRequested;
    }

    public void setVerifyRequested(String verifyRequested) {
        this.verifyRequested = verifyRequested;
    }

    /**
     * Opens the verification panel the link asked for, for an admin and a projection that can be verified; otherwise
     * says why not, as the link's disabled form on the projection page does.
     */
    public void openRequested() {
        if (verifyRequested == null || verifyRequested.isBlank()) {
            return;
        }
        String asked = verifyRequested;
        verifyRequested = null;
        if (!user.isAdmin()) {
            Text.error(Text.of("action.not-allowed"));
        } else if (!reads.verifiable(asked)) {
            Text.error(Text.of("projection.verify.unavailable", asked));
        } else {
            askVerify(asked);
        }
    }

    private void ask(Question what, String projection) {
        question = what;
        this.projection = projection;
        rebuildTenant = getTenantChoices().get(0);
        scopeFrom = null;
        scopeTo = null;
        scopeSince = null;
        scopeFilterName = null;
        scopeFilterValue = null;
        partitions = 1;
        offeredScopes = what == Question.REBUILD ? reads.rebuildScopes(projection)
                // a verification walks ids() as a rebuild does: the id range where the scoped ids() takes one
                : what == Question.VERIFY && reads.rebuildScopes(projection).contains(RebuildScope.Kind.ID_RANGE)
                ? Set.of(RebuildScope.Kind.ID_RANGE) : Set.of();
        offeredFilters = what == Question.REBUILD ? List.copyOf(new TreeSet<>(reads.rebuildFilters(projection)))
                : List.of();
    }

    /** The scope the panel's fields describe; a clear error naming the field that cannot be read. */
    RebuildScope scope() {
        Instant since = null;
        if (scopeSince != null && !scopeSince.isBlank()) {
            since = ScopeInput.instant(scopeSince);
        }
        String filter = scopeFilterName == null || scopeFilterName.isBlank() ? null
                : scopeFilterName + "=" + (scopeFilterValue == null ? "" : scopeFilterValue.trim());
        return new RebuildScope(trimmed(scopeFrom), trimmed(scopeTo), since, filter);
    }

    private static String trimmed(String value) {
        return value == null ? null : value.trim();
    }

    public void cancel() {
        question = null;
        projection = null;
    }

    /** The "Yes" button: does what the panel asked about, then the overview reads everything again. */
    public void confirm() {
        if (question == null) {
            return;
        }
        String asked = projection;
        switch (question) {
            case REBUILD -> Text.act(() -> {
                RebuildScope scope = scope();
                if (!scope.isEverything() || partitions != 1) {
                    return admin.rebuild(asked, TenantChoice.isAll(rebuildTenant) ? null
                            : TenantChoice.tenant(rebuildTenant), scope, partitions);
                }
                return TenantChoice.isAll(rebuildTenant) ? admin.rebuildAllTenants(asked)
                        : List.of(admin.rebuild(asked, TenantChoice.tenant(rebuildTenant)));
            }, this::started);
            case CLEAR_AND_REBUILD -> Text.act(() -> admin.clearAndRebuild(asked,
                    TenantChoice.isAll(rebuildTenant) ? null : TenantChoice.tenant(rebuildTenant)), this::started);
            case PURGE -> Text.act(() -> admin.purge(asked),
                    purged -> Text.of("overview.purged", purged, asked));
            case VERIFY -> Text.act(() -> admin.verify(asked, TenantChoice.isAll(rebuildTenant) ? null
                    : TenantChoice.tenant(rebuildTenant), scope(), partitions), ids -> {
                        overview.follow(ids);
                        return Text.of("overview.verify-started", ids.size());
                    });
        }
        cancel();
        overview.reload();
    }

    private String started(List<String> ids) {
        overview.follow(ids);
        return Text.of("overview.rebuild-started", ids.size());
    }

    public boolean isConfirming() {
        return question != null;
    }

    /** Rebuilds and verifications ask which tenants; a purge does not. */
    public boolean isConfirmingRebuild() {
        return question == Question.REBUILD || question == Question.CLEAR_AND_REBUILD || question == Question.VERIFY;
    }

    public String getQuestion() {
        if (question == null) {
            return "";
        }
        return switch (question) {
            case REBUILD -> Text.of("overview.ask.rebuild", projection);
            case CLEAR_AND_REBUILD -> Text.of("overview.ask.clear-rebuild", projection);
            case PURGE -> Text.of("overview.ask.purge", projection);
            case VERIFY -> Text.of("overview.ask.verify", projection);
        };
    }

    /** What leaving the scope empty means: every id rebuilt, or every id checked. */
    public String getScopeNote() {
        return question == Question.VERIFY ? Text.of("overview.dialog.scope-note.verify")
                : Text.of("overview.dialog.scope-note");
    }

    /** "All tenants" and each tenant of the application's {@code TenantDirectory}; only "(no tenant)" without one. */
    public List<String> getTenantChoices() {
        return TenantChoice.choices(reads.tenants());
    }

    public String tenantLabel(String choice) {
        return TenantChoice.label(choice);
    }

    public String getRebuildTenant() {
        return rebuildTenant;
    }

    public void setRebuildTenant(String rebuildTenant) {
        this.rebuildTenant = rebuildTenant;
    }

    /** The panel offers a scope only where the projection lists the kind. */
    public boolean isOffersIdRange() {
        return (question == Question.REBUILD || question == Question.VERIFY)
                && offeredScopes.contains(RebuildScope.Kind.ID_RANGE);
    }

    public boolean isOffersChangedSince() {
        return question == Question.REBUILD && offeredScopes.contains(RebuildScope.Kind.CHANGED_SINCE);
    }

    public boolean isOffersFilter() {
        return question == Question.REBUILD && offeredScopes.contains(RebuildScope.Kind.FILTER)
                && !offeredFilters.isEmpty();
    }

    public List<String> getFilterNames() {
        return offeredFilters;
    }

    public String getScopeFrom() {
        return scopeFrom;
    }

    public void setScopeFrom(String scopeFrom) {
        this.scopeFrom = scopeFrom;
    }

    public String getScopeTo() {
        return scopeTo;
    }

    public void setScopeTo(String scopeTo) {
        this.scopeTo = scopeTo;
    }

    public String getScopeSince() {
        return scopeSince;
    }

    public void setScopeSince(String scopeSince) {
        this.scopeSince = scopeSince;
    }

    public String getScopeFilterName() {
        return scopeFilterName;
    }

    public void setScopeFilterName(String scopeFilterName) {
        this.scopeFilterName = scopeFilterName;
    }

    public String getScopeFilterValue() {
        return scopeFilterValue;
    }

    public void setScopeFilterValue(String scopeFilterValue) {
        this.scopeFilterValue = scopeFilterValue;
    }

    public int getPartitions() {
        return partitions;
    }

    public void setPartitions(int partitions) {
        this.partitions = partitions;
    }
}
