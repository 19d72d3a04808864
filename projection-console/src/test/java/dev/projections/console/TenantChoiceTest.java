package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TenantChoiceTest {

    @Test
    void tenantsNamedLikeTheAllChoiceAreTenantsNotAllOfThem() {
        List<String> choices = TenantChoice.choices(List.of("*", "all", "acme"));
        assertThat(choices).hasSize(4).doesNotHaveDuplicates();
        assertThat(choices.stream().filter(TenantChoice::isAll)).hasSize(1);
        assertThat(choices.stream().map(TenantChoice::label))
                .containsExactly("all tenants", "*", "all", "acme");
        assertThat(TenantChoice.tenant(choices.get(1))).isEqualTo("*");
        assertThat(TenantChoice.tenant(choices.get(2))).isEqualTo("all");
    }

    @Test
    void theEmptyTenantTravelsAsANonEmptyValueAndComesBackEmpty() {
        List<String> choices = TenantChoice.choices(List.of());
        assertThat(choices).hasSize(1);
        assertThat(choices.get(0)).isNotEmpty();
        assertThat(TenantChoice.tenant(choices.get(0))).isEmpty();
        assertThat(TenantChoice.label(choices.get(0))).isEqualTo("(no tenant)");
    }

    @Test
    void aValueTheMenuNeverOfferedIsRefusedNamingIt() {
        assertThatThrownBy(() -> TenantChoice.tenant("*")).hasMessageContaining("not a tenant choice: *");
        assertThatThrownBy(() -> TenantChoice.tenant(null)).hasMessageContaining("not a tenant choice: null");
    }
}
