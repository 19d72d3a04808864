package dev.projections.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The two settings tables kept by hand — README "Configuration" and docs/contract.md §10 — name every key
 * {@link Settings} reads, and §10 names no key it does not: a key added, renamed or removed in the code fails here
 * until both tables say so.
 */
class SettingsDocumentedTest {

    private static final Pattern ROW = Pattern.compile("(?m)^\\| `(projection\\.[a-z0-9.-]+)` \\|");

    @Test
    void theReadmeAndTheContractNameEverySettingTheCodeReads() throws Exception {
        Set<String> keys = keysInCode();
        assertThat(keys).as("keys found in Settings").hasSizeGreaterThan(30);
        assertThat(rows(readme())).as("README's settings table").containsAll(keys);
        assertThat(rows(contractSection10())).as("docs/contract.md §10").containsAll(keys);
    }

    @Test
    void theContractsTableNamesNoKeyTheCodeDoesNotRead() throws Exception {
        assertThat(keysInCode()).containsAll(rows(contractSection10()));
    }

    /** The values of {@link Settings}'s public constants that are setting keys. */
    private static Set<String> keysInCode() throws IllegalAccessException {
        Set<String> keys = new TreeSet<>();
        for (Field field : Settings.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
                    && field.get(null) instanceof String value && value.startsWith("projection.")) {
                keys.add(value);
            }
        }
        return keys;
    }

    private static Set<String> rows(String markdown) {
        Set<String> keys = new TreeSet<>();
        Matcher row = ROW.matcher(markdown);
        while (row.find()) {
            keys.add(row.group(1));
        }
        return keys;
    }

    private static String readme() throws IOException {
        return Files.readString(Path.of("..", "README.md"));
    }

    private static String contractSection10() throws IOException {
        String contract = Files.readString(Path.of("..", "docs", "contract.md"));
        int start = contract.indexOf("## §10 ");
        int end = contract.indexOf("\n## §", start + 1);
        return contract.substring(start, end < 0 ? contract.length() : end);
    }
}
