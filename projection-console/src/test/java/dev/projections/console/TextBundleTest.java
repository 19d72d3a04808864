package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every text a page or a class asks the bundle for is there: a missing key would show as "???key???" to operators. */
class TextBundleTest {

    private static final Pattern PAGE_KEY = Pattern.compile("projectionsText\\['([^']+)'\\]");
    private static final Pattern JAVA_KEY = Pattern.compile("Text\\.of\\(\"([^\"]+)\"");

    @Test
    void everyKeyThePagesAndClassesUseIsInTheBundle() throws IOException {
        Set<String> used = new TreeSet<>();
        used.addAll(keys(Path.of("src/main/resources/META-INF/resources"), ".xhtml", PAGE_KEY));
        used.addAll(keys(Path.of("src/main/java"), ".java", JAVA_KEY));
        ResourceBundle bundle = ResourceBundle.getBundle(Text.BUNDLE, Locale.ENGLISH);

        assertThat(used).as("keys in use").isNotEmpty();
        assertThat(used).allSatisfy(key -> assertThat(bundle.containsKey(key)).as("bundle has " + key).isTrue());
    }

    @Test
    void argumentsArePutIntoTheirPlaces() {
        assertThat(Text.of(Locale.ENGLISH, "action.retried", 12_345, "order-search"))
                .isEqualTo("12,345 failing marks of order-search are due again");
    }

    private static Set<String> keys(Path root, String suffix, Pattern pattern) throws IOException {
        Set<String> keys = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(suffix)).toList()) {
                Matcher matcher = pattern.matcher(Files.readString(file));
                while (matcher.find()) {
                    keys.add(matcher.group(1));
                }
            }
        }
        return keys;
    }
}
