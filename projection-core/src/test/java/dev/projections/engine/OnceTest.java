package dev.projections.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OnceTest {

    @Test
    void looksUpAtTheFirstUseAndKeepsWhatItFound() {
        AtomicInteger lookups = new AtomicInteger();
        Once<String> value = Once.of(() -> "found " + lookups.incrementAndGet());

        assertThat(lookups).hasValue(0);
        assertThat(value.get()).isEqualTo("found 1");
        assertThat(value.get()).isEqualTo("found 1");
        assertThat(lookups).hasValue(1);
    }

    @Test
    void aLookupThatFindsNothingFailsAndIsTriedAgainAtTheNextUse() {
        AtomicInteger lookups = new AtomicInteger();
        Once<String> value = Once.of(() -> lookups.incrementAndGet() == 1 ? null : "found");

        assertThatThrownBy(value::get).isInstanceOf(NullPointerException.class);
        assertThat(value.get()).isEqualTo("found");
    }
}
