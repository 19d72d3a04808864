package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one encoder of the console's links and the API's: a space is %20, an empty value is kept, a null one left out. */
class QueryStringTest {

    @Test
    void valuesAreEncodedAsUtf8WithASpaceAsPercent20() {
        assertThat(new QueryString().add("error", "Timeout a+b/ä").toString())
                .isEqualTo("error=Timeout%20a%2Bb%2F%C3%A4");
    }

    @Test
    void anEmptyValueIsKeptAndANullOneLeftOutUnlessBlanksAreLeftOutToo() {
        assertThat(new QueryString().add("tenant", "").add("error", null).toString()).isEqualTo("tenant=");
        assertThat(new QueryString().addNonEmpty("user", "").addNonEmpty("action", "retry").toString())
                .isEqualTo("action=retry");
    }
}
