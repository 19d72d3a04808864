package dev.projections.messages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.GeneratedTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every WARNING and SEVERE log call of the product's code names a {@link MessageId} at the start of its text, every
 * id is used, and the guide's catalogue (docs/guide/messages.md) is what the ids generate. Write the catalogue again
 * with {@code mvn -pl projection-core test -Dtest=MessageIdsTest -Dprojection.docs.regenerate=true}.
 */
class MessageIdsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** The product's modules; the demo, the benchmarks and the test modules log as they like. */
    private static final Set<String> NOT_PRODUCT = Set.of("demo", "demo-web", "benchmarks", "it-tests", "payara-tests",
            "test-support");
    private static final Pattern LOGS_WARNING = Pattern.compile("Level\\.(WARNING|SEVERE)|\\.(warning|severe)\\(");
    private static final Pattern ID = Pattern.compile("\"(PRJ\\d{3}): ");
    private static final GeneratedTable CATALOGUE = new GeneratedTable(ROOT.resolve("docs/guide/messages.md"),
            "<!-- generated from MessageId.java", "MessageIdsTest");

    @Test
    void everyWarningOrSevereLogCallStartsWithAnIdAndEveryIdIsUsed() throws IOException {
        Set<String> known = Arrays.stream(MessageId.values()).map(Enum::name).collect(Collectors.toSet());
        Set<String> used = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        List<Path> sources = sources();
        assertThat(sources).as("the product's sources").hasSizeGreaterThan(100);
        for (Path source : sources) {
            List<String> lines = Files.readAllLines(source);
            for (int i = 0; i < lines.size(); i++) {
                if (!LOGS_WARNING.matcher(lines.get(i)).find() || lines.get(i).strip().startsWith("*")) {
                    continue;
                }
                StringBuilder call = new StringBuilder(lines.get(i));
                for (int j = i + 1; j < lines.size() && j < i + 6 && !call.toString().contains(";"); j++) {
                    call.append('\n').append(lines.get(j));
                }
                Matcher id = ID.matcher(call);
                boolean named = false;
                while (id.find()) {
                    named = true;
                    used.add(id.group(1));
                    if (!known.contains(id.group(1))) {
                        problems.add(ROOT.relativize(source) + ":" + (i + 1) + ": " + id.group(1) + " is no MessageId");
                    }
                }
                if (!named) {
                    problems.add(ROOT.relativize(source) + ":" + (i + 1) + ": a WARNING or SEVERE log call without an "
                            + "id: " + lines.get(i).strip());
                }
            }
        }
        assertThat(problems).as("log calls").isEmpty();
        assertThat(used).as("every MessageId is used by a log call").isEqualTo(new TreeSet<>(known));
    }

    @Test
    void theGuidesCatalogueIsWhatTheIdsGenerate() throws IOException {
        CATALOGUE.assertHolds(MessageId.markdownTable());
    }

    private static List<Path> sources() throws IOException {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(Files::isDirectory).toList()) {
                Path main = module.resolve("src/main/java");
                if (NOT_PRODUCT.contains(module.getFileName().toString()) || !Files.isDirectory(main)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(main)) {
                    files.filter(file -> file.toString().endsWith(".java")).forEach(sources::add);
                }
            }
        }
        return sources;
    }
}
