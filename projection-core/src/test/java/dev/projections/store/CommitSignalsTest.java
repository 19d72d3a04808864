package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The channel's name: the schema's, within PostgreSQL's 63 bytes, and still one per schema (docs/design.md D55). */
class CommitSignalsTest {

    @Test
    void aShortSchemaNamesItsChannelAsItIs() {
        assertThat(new CommitSignals(Dialect.POSTGRESQL, null).channel()).isEqualTo("projections");
        assertThat(new CommitSignals(Dialect.POSTGRESQL, "Shop").channel()).isEqualTo("projections:shop");
    }

    @Test
    void aLongSchemaIsCutAndHashedWithinSixtyThreeBytesAndTwoOfThemStayApart() {
        String a = CommitSignals.channelOf("x".repeat(60) + "a");
        String b = CommitSignals.channelOf("x".repeat(60) + "b");
        String wide = CommitSignals.channelOf("é".repeat(40));
        assertThat(a.getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(63);
        assertThat(wide.getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(63);
        assertThat(a).startsWith("projections:xxx").isNotEqualTo(b);
    }

    @Test
    void onlyPostgreSQLSignals() {
        assertThat(new CommitSignals(Dialect.POSTGRESQL, null).supported()).isTrue();
        assertThat(new CommitSignals(Dialect.MARIADB, null).supported()).isFalse();
        assertThat(new CommitSignals(Dialect.H2, null).supported()).isFalse();
    }
}
