package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CsvWriterTest {

    @Test
    void fieldsWithCommasQuotesAndLineBreaksAreQuotedWithQuotesDoubledAndLinesEndWithCrLf() throws IOException {
        StringWriter out = new StringWriter();
        CsvWriter csv = new CsvWriter(out);
        csv.row(List.of("id", "detail"));
        csv.row(Arrays.asList("1", "a, b"));
        csv.row(Arrays.asList("2", "say \"hi\""));
        csv.row(Arrays.asList("3", "two\nlines"));
        csv.row(Arrays.asList("4", null));
        assertThat(out.toString()).isEqualTo("id,detail\r\n1,\"a, b\"\r\n2,\"say \"\"hi\"\"\"\r\n3,\"two\nlines\"\r\n4,\r\n");
    }

    @Test
    void aCellAStartingWithAFormulaCharacterGetsALeadingApostropheSoSpreadsheetsShowItAsText() {
        assertThat(CsvWriter.field("=HYPERLINK(\"http://evil.example\")")).isEqualTo("\"'=HYPERLINK(\"\"http://evil.example\"\")\"");
        assertThat(CsvWriter.field("+1")).isEqualTo("'+1");
        assertThat(CsvWriter.field("-2+3")).isEqualTo("'-2+3");
        assertThat(CsvWriter.field("@SUM(A1)")).isEqualTo("'@SUM(A1)");
        assertThat(CsvWriter.field("\t=1")).isEqualTo("'\t=1");
        assertThat(CsvWriter.field("\r=1")).isEqualTo("\"'\r=1\"");
        assertThat(CsvWriter.field("a=1")).as("only a first character counts").isEqualTo("a=1");
        assertThat(CsvWriter.field("retry")).isEqualTo("retry");
    }
}
