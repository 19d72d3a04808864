package dev.projections.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.GeneratedTable;
import dev.projections.config.SettingsReference.Key;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference (docs/guide/configuration.md) is generated from {@link SettingsReference}: every key
 * {@link Settings} reads has an entry with a description, every entry is a key the code reads, a projection may set
 * exactly the keys {@link ProjectionSettings#KEYS} lets it, and the guide's table is what the entries generate. After
 * changing an entry, write the table again with
 * {@code mvn -pl projection-core test -Dtest=ConfigurationReferenceTest -Dprojection.docs.regenerate=true}.
 */
class ConfigurationReferenceTest {

    private static final GeneratedTable TABLE = new GeneratedTable(Path.of("..", "docs", "guide", "configuration.md"),
            "<!-- generated from SettingsReference.java", "ConfigurationReferenceTest");

    @Test
    void everyKeyTheCodeReadsHasAnEntryWithADescriptionAndEveryEntryIsAKeyItReads() throws Exception {
        Set<String> inCode = keysInCode();
        assertThat(inCode).as("keys found in Settings").hasSizeGreaterThan(30);
        Set<String> documented = SettingsReference.KEYS.stream().map(Key::key).collect(Collectors.toCollection(TreeSet::new));
        assertThat(documented).as("SettingsReference's keys").isEqualTo(inCode);
        assertThat(SettingsReference.KEYS).as("a description each").allSatisfy(key -> {
            assertThat(key.description()).as(key.key()).isNotBlank();
            assertThat(key.defaultValue()).as(key.key()).isNotBlank();
            assertThat(key.since()).as(key.key()).matches("\\d+\\.\\d+\\.\\d+");
        });
        assertThat(SettingsReference.KEYS.size()).as("one entry per key").isEqualTo(documented.size());
    }

    @Test
    void exactlyTheKeysAProjectionMaySetForItselfAreMarkedPerProjection() {
        Set<String> perProjection = SettingsReference.KEYS.stream().filter(Key::perProjection)
                .map(key -> key.key().substring("projection.".length())).collect(Collectors.toCollection(TreeSet::new));
        assertThat(perProjection).isEqualTo(new TreeSet<>(ProjectionSettings.KEYS));
    }

    @Test
    void theGuidesTableIsWhatTheReferenceGenerates() throws Exception {
        TABLE.assertHolds(SettingsReference.markdownTable());
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
}
