package dev.projections.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.RebuildScope;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Starting and reading rebuild runs as every caller reaches them (docs/contract.md §7), on H2 without a server. */
class RebuildOperationsTest {

    @Test
    void aStartWritesARunByItsCallerRemembersItForTheTransactionAndAnnouncesIt() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-rebuild-start");
        Set<String> started = new HashSet<>();
        RebuildOperations rebuilds = db.rebuilds(null, started);

        String runId = rebuilds.start("orders", "", RebuildScope.everything(), 1, "alice");

        assertThat(started).containsExactly(runId);
        assertThat(db.madeDue).hasValue(1);
        assertThat(rebuilds.progress(runId).projection()).isEqualTo("orders");
        assertThat(rebuilds.latest("orders", "")).hasValueSatisfying(run -> assertThat(run.runId()).isEqualTo(runId));
        assertThat(rebuilds.history("orders", 10)).extracting(run -> run.runId()).containsExactly(runId);
        assertThatThrownBy(() -> rebuilds.cancel(runId, "alice")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was started in this transaction");
    }

    @Test
    void everyTenantMeansTheTenantDirectorysOnceHereAndNoneIsRefusedSayingWhatIsMissing() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-rebuild-tenants");
        List<String> runs = db.rebuilds(List.of("acme", "globex"), new HashSet<>())
                .startForEveryTenant("orders", RebuildScope.everything(), 1, "alice");
        assertThat(runs).hasSize(2).doesNotHaveDuplicates();
        RebuildOperations withDirectory = db.rebuilds(List.of("acme", "globex"), new HashSet<>());
        assertThat(runs.stream().map(run -> withDirectory.progress(run).tenant())).containsExactly("acme", "globex");

        RebuildOperations without = db.rebuilds(null, new HashSet<>());
        assertThat(without.hasTenantDirectory()).isFalse();
        assertThatThrownBy(() -> without.startForEveryTenant("orders", RebuildScope.everything(), 1, "alice"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs a TenantDirectory bean");
    }

    @Test
    void aRebuildOfEveryTenantIsCheckedEvenWhenTheDirectoryListsNone() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-rebuild-no-tenants");
        RebuildOperations noTenants = db.rebuilds(List.of(), new HashSet<>());
        assertThat(noTenants.startForEveryTenant("orders", RebuildScope.everything(), 1, "alice")).isEmpty();
        assertThatThrownBy(() -> noTenants.startForEveryTenant("orders", RebuildScope.everything(), 65, "alice"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("partitions must be 1..64, was 65");
        assertThatThrownBy(() -> noTenants.startForEveryTenant("no-such", RebuildScope.everything(), 1, "alice"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("unknown projection \"no-such\"");
    }

    @Test
    void whatCannotBeRebuiltIsRefusedNamingWhyBeforeAnythingIsWritten() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-rebuild-refused");
        RebuildOperations rebuilds = db.rebuilds(null, new HashSet<>());

        assertThatThrownBy(() -> rebuilds.start("customers", "", RebuildScope.everything(), 1, "alice"))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("implement "
                        + "Projection.ids(after, limit)");
        assertThatThrownBy(() -> rebuilds.start("orders", null, RebuildScope.everything(), 1, "alice"))
                .hasMessageContaining("tenant must not be null");
        assertThatThrownBy(() -> rebuilds.start("ordrs", "", RebuildScope.everything(), 1, "alice"))
                .hasMessageContaining("unknown projection \"ordrs\"");
        assertThat(db.sqlCalls).hasValue(0);
        assertThatThrownBy(() -> rebuilds.progress("orders")).hasMessageContaining("no rebuild run \"orders\"")
                .hasMessageContaining("latestRebuild(\"orders\")");
        assertThatThrownBy(() -> rebuilds.history("orders", 0)).hasMessageContaining("limit must be 1..1000, was 0");
        assertThat(db.madeDue).hasValue(0);
    }

    @Test
    void aProjectionThatIsNotVerifiableIsRefusedAVerificationBeforeAnythingIsWritten() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-verify-refused");
        RebuildOperations rebuilds = db.rebuilds(null, new HashSet<>());

        assertThatThrownBy(() -> rebuilds.verify("orders", "", RebuildScope.everything(), 1, "alice"))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("projection orders cannot be verified: implement dev.projections.Verifiable (drifted(ids))"
                        + " beside Projection");
        assertThatThrownBy(() -> rebuilds.verify("customers", "", RebuildScope.everything(), 1, "alice"))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("cannot be verified: implement "
                        + "Projection.ids(after, limit)");
        assertThat(db.sqlCalls).hasValue(0);
        assertThat(db.madeDue).hasValue(0);
    }

    @Test
    void aRunIsFoundByItsIdWithItsPartitionsAndAnIdThatNeverRanFindsNothingWithoutAnError() throws Exception {
        OperationsDatabase db = new OperationsDatabase("ops-rebuild-find");
        RebuildOperations rebuilds = db.rebuilds(null, new HashSet<>());
        String runId = rebuilds.start("orders", "", RebuildScope.everything(), 1, "alice");

        assertThat(rebuilds.find(runId)).hasValueSatisfying(run -> assertThat(run.projection()).isEqualTo("orders"));
        assertThat(rebuilds.partitions(runId)).extracting(partition -> partition.number()).containsExactly(0);
        assertThat(rebuilds.find("no-such-run")).isEmpty();
        assertThat(rebuilds.find(null)).isEmpty();
        assertThat(rebuilds.partitions("no-such-run")).isEmpty();
    }
}
