package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrendChartTest {

    @Test
    void aGapSplitsTheLineAndALoneValueStillShows() {
        String svg = TrendChart.full().svg("Backlog", "marks", "-60 min", "now", List.of(
                new TrendChart.Series("due", "due", Arrays.asList(1.0, 2.0, null, 4.0, null, null))));
        assertThat(svg.split("<polyline", -1)).as("two segments").hasSize(3);
        assertThat(svg).contains("class=\"line due\"");
    }

    @Test
    void theScaleEndsAtARoundNumberAndTheTitleSaysTheLatestAndLargestValue() {
        String svg = TrendChart.full().svg("Refreshes", "/min", "-60 min", "now", List.of(
                new TrendChart.Series("refreshes/min", "refreshes", Arrays.asList(120.0, 3_400.0, 2_000.0))));
        assertThat(svg).contains(">5,000</text>");
        assertThat(svg).contains("<title>Refreshes; refreshes/min: latest 2,000, largest 3,400 /min</title>");
        assertThat(TrendChart.niceMax(0)).isEqualTo(1);
        assertThat(TrendChart.niceMax(7)).isEqualTo(10);
        assertThat(TrendChart.niceMax(101)).isEqualTo(200);
    }

    @Test
    void textInTheChartIsEscapedSoANameCannotBecomeMarkup() {
        String svg = TrendChart.full().svg("<script>alert(1)</script>", "\"marks\"", "a&b", "now", List.of(
                new TrendChart.Series("x'y", "due\" onload=\"alert(1)", List.of(1.0))));
        assertThat(svg).doesNotContain("<script").doesNotContain("onload=\"").contains("&lt;script&gt;")
                .contains("a&amp;b").contains("x&#39;y");
    }

    @Test
    void aSeriesWithoutDataSaysSo() {
        String svg = TrendChart.spark().svg("Due", "marks", "", "", List.of(
                new TrendChart.Series("due", "due", Arrays.asList(null, null))));
        assertThat(svg).contains("due: no data").doesNotContain("<polyline").doesNotContain("<text");
    }
}
