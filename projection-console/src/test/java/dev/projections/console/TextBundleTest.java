package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** Every text a page or a class asks the bundle for is there: a missing key would show as "???key???" to operators. */
class TextBundleTest {

    private static final Path PAGES = Path.of("src/main/resources/META-INF/resources");
    private static final Pattern PAGE_KEY = Pattern.compile("projectionsText\\['([^']+)'\\]");
    private static final Pattern JAVA_KEY = Pattern.compile("Text\\.of\\((?:\\w+, )?\"([^\"]+)\"");
    private static final Pattern ARGUMENT = Pattern.compile("\\{\\d");
    private static final Pattern EXPRESSION = Pattern.compile("#\\{[^}]*\\}");

    /** Attributes a browser shows or reads out; other attributes carry ids, outcomes and values. */
    private static final Set<String> SHOWN_ATTRIBUTES = Set.of("title", "placeholder", "alt", "aria-label",
            "itemLabel");

    private static final Set<String> BUTTON_INPUTS = Set.of("submit", "button", "reset");

    private static final ResourceBundle BUNDLE = ResourceBundle.getBundle(Text.BUNDLE, Locale.ENGLISH);

    @Test
    void everyKeyThePagesAndClassesUseIsInTheBundle() throws IOException {
        Set<String> used = used();

        assertThat(used).as("keys in use").isNotEmpty();
        assertThat(used).allSatisfy(key -> assertThat(BUNDLE.containsKey(key)).as("bundle has " + key).isTrue());
    }

    /** A key is used by its literal name, never built from pieces: else this test and the one above could not see it. */
    @Test
    void everyKeyInTheBundleIsUsedByAPageOrAClass() throws IOException {
        assertThat(new TreeSet<>(BUNDLE.keySet())).as("keys nothing uses").isSubsetOf(used());
    }

    /**
     * MessageFormat reads a text with arguments, which drops a single apostrophe ("the overview's {0}" would show
     * "the overviews {0}"); a text without arguments is shown as written, where a doubled one would show twice.
     */
    @Test
    void apostrophesAreDoubledExactlyInTextsWithArguments() {
        for (String key : BUNDLE.keySet()) {
            String text = BUNDLE.getString(key);
            if (ARGUMENT.matcher(text).find()) {
                assertThat(text.replace("''", "")).as(key + " (with arguments)").doesNotContain("'");
            } else {
                assertThat(text).as(key + " (without arguments)").doesNotContain("''");
            }
        }
    }

    @Test
    void argumentsArePutIntoTheirPlaces() {
        assertThat(Text.of(Locale.ENGLISH, "action.retried", 12_345, "order-search"))
                .isEqualTo("12345 failing marks of order-search are due again");
        assertThat(Text.of(Locale.ENGLISH, "run.state.finished-failing", 12_345))
                .as("counts grouped as Format.number groups them").isEqualTo("finished, 12,345 failing");
        assertThat(Text.of(Locale.ENGLISH, "rebuilds.empty")).contains("overview's");
        assertThat(Text.of(Locale.ENGLISH, "instances.skew.title", "5,000")).startsWith("this instance's clock")
                .contains("beyond 5,000 ms either way");
        assertThat(Text.of(Locale.ENGLISH, "overview.rebuild-started", 1)).isEqualTo("rebuild started: 1 run");
        assertThat(Text.of(Locale.ENGLISH, "overview.rebuild-started", 12_345)).as("a choice, its count ungrouped")
                .isEqualTo("rebuild started: 12345 runs");
        assertThat(Text.of(Locale.ENGLISH, "overview.ask.rebuild", "order-search")).contains("today's changes");
    }

    /** Every word a page shows comes from the bundle. */
    @Test
    void pagesShowNoWordOfTheirOwn() throws Exception {
        List<String> words = new ArrayList<>();
        try (Stream<Path> files = Files.walk(PAGES)) {
            for (Path page : files.filter(f -> f.toString().endsWith(".xhtml")).toList()) {
                collectWords(parse(page), page.getFileName().toString(), words);
            }
        }
        assertThat(words).as("texts written in a page instead of the bundle").isEmpty();
    }

    @Test
    void englishIsALanguageOfItsOwnAndNoOtherIsSpokenYet() {
        assertThat(Text.speaks("en")).isTrue();
        assertThat(Text.speaks("de")).isFalse();
        assertThat(ConsoleLocale.choose(List.of(Locale.GERMANY, Locale.US).iterator())).isEqualTo(Locale.ENGLISH);
        assertThat(ConsoleLocale.choose(List.of(Locale.FRENCH).iterator())).isEqualTo(Locale.ENGLISH);
    }

    private static Node parse(Path page) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(page.toFile()).getDocumentElement();
    }

    private static void collectWords(Node node, String page, List<String> words) {
        if (node.getNodeType() == Node.TEXT_NODE && hasWord(node.getNodeValue())) {
            words.add(page + ": " + node.getNodeValue().trim());
        }
        if (node instanceof Element element) {
            if (isScript(element)) {
                // code, whose words are names: what a script shows it reads from the page (data-… attributes)
                return;
            }
            for (String attribute : SHOWN_ATTRIBUTES) {
                if (hasWord(element.getAttribute(attribute))) {
                    words.add(page + ": " + attribute + "=\"" + element.getAttribute(attribute) + "\"");
                }
            }
            if (isButtonOrLink(element) && hasWord(element.getAttribute("value"))) {
                words.add(page + ": value=\"" + element.getAttribute("value") + "\"");
            }
        }
        NodeList children = node.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            collectWords(children.item(i), page, words);
        }
    }

    private static boolean isScript(Element element) {
        return element.getLocalName().equals("outputScript") || element.getLocalName().equals("script");
    }

    /**
     * The value of these is their label; elsewhere a value may be an outcome or a parameter ("tenants", "true"), and a
     * checkbox's or a text field's value is what it sends ("all") or what was typed.
     */
    private static boolean isButtonOrLink(Element element) {
        String name = element.getLocalName();
        return name.equals("commandButton") || name.equals("commandLink") || name.equals("link")
                || name.equals("button") || name.equals("input") && BUTTON_INPUTS.contains(element.getAttribute("type"));
    }

    private static boolean hasWord(String text) {
        return EXPRESSION.matcher(text).replaceAll("").codePoints().anyMatch(Character::isLetter);
    }

    private static Set<String> used() throws IOException {
        Set<String> used = new TreeSet<>();
        used.addAll(keys(PAGES, ".xhtml", PAGE_KEY));
        used.addAll(keys(Path.of("src/main/java"), ".java", JAVA_KEY));
        return used;
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
