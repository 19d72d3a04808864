package dev.projections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The key order every multi-row statement locks in (docs/contract.md §3 lock order): the pending table's primary key. */
class MarkKeyTest {

    @Test
    void keysSortByProjectionThenTenantThenId() {
        MarkKey a = new MarkKey("a", "", "2");
        MarkKey b = new MarkKey("a", "t1", "1");
        MarkKey c = new MarkKey("a", "t1", "10");
        MarkKey d = new MarkKey("a", "t2", "0");
        MarkKey e = new MarkKey("b", "", "0");
        List<MarkKey> keys = new ArrayList<>(List.of(e, d, c, b, a));
        Collections.shuffle(keys);

        Collections.sort(keys);

        assertThat(keys).containsExactly(a, b, c, d, e);
    }

    @Test
    void equalKeysAreEqualAndCompareAsEqual() {
        MarkKey one = new MarkKey("p", "t", "1");
        MarkKey same = new MarkKey("p", "t", "1");

        assertThat(one).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(one.compareTo(same)).isZero();
    }

    @Test
    void aKeyNeedsProjectionTenantAndId() {
        assertThatThrownBy(() -> new MarkKey(null, "", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MarkKey("p", null, "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MarkKey("p", "", null)).isInstanceOf(IllegalArgumentException.class);
    }
}
