package dev.projections;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the repository's Markdown (the README, the guide in docs/guide, the contributor docs) names
 * a file that exists and, into a Markdown file, a heading it has, as GitHub renders the anchor: a page moved or a
 * heading renamed fails the build until its links follow (issue 52's link check).
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6}) (.*)$");
    private static final Set<String> SKIPPED = Set.of("target", ".git", "node_modules");

    @Test
    void everyRelativeLinkNamesAFileThatExistsAndAHeadingItHas() throws IOException {
        List<Path> pages = markdown();
        assertThat(pages).as("the README and the guide").contains(ROOT.resolve("README.md"),
                ROOT.resolve("docs/guide/configuration.md"));
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path page : pages) {
            anchors.put(page, anchors(page));
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            boolean fence = false;
            List<String> lines = Files.readAllLines(page);
            for (int no = 1; no <= lines.size(); no++) {
                String line = lines.get(no - 1);
                if (line.startsWith("```")) {
                    fence = !fence;
                    continue;
                }
                Matcher link = LINK.matcher(line);
                while (!fence && link.find()) {
                    String problem = problem(page, link.group(1), anchors);
                    if (problem != null) {
                        broken.add(ROOT.relativize(page) + ":" + no + ": " + problem);
                    }
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    /** What is wrong with {@code target}, a link of {@code page}; {@code null} when nothing is. */
    private static String problem(Path page, String target, Map<Path, Set<String>> anchors) {
        if (target.matches("^[a-z]+:.*") || target.startsWith("<")) {
            return null; // an address outside the repository, or mail
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
        if (!Files.exists(file)) {
            return "no such file " + target;
        }
        if (anchor != null && file.toString().endsWith(".md") && !anchors.get(file).contains(anchor)) {
            return "no heading #" + anchor + " in " + ROOT.relativize(file);
        }
        return null;
    }

    private static List<Path> markdown() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(file -> file.toString().endsWith(".md"))
                    .filter(file -> ROOT.relativize(file).toString().isEmpty()
                            || Stream.of(ROOT.relativize(file).toString().split("/")).noneMatch(SKIPPED::contains))
                    .sorted().toList();
        }
    }

    /** The anchors of a page's headings as GitHub makes them; a repeated one gets -1, -2, … */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        boolean fence = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                fence = !fence;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (!fence && heading.matches()) {
                String slug = slug(heading.group(2));
                String unique = slug;
                for (int i = 1; anchors.contains(unique); i++) {
                    unique = slug + "-" + i;
                }
                anchors.add(unique);
            }
        }
        return anchors;
    }

    /** Lower case, backticks and punctuation dropped (word characters, hyphens and spaces kept), spaces as hyphens. */
    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replace("`", "")
                .replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
    }
}
