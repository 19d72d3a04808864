import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What CI's run printed at its end, read from the surefire and failsafe reports it kept (JDK only, run as a
 * single-file program: {@code java .ci/Report.java …}).
 *
 * <pre>
 * summary OUT STATUS        the time of each phase (OUT/phases, and OUT/phases-beside for the lane beside the main
 *                           pass), the 15 slowest test classes of OUT/reports/PHASE, and after a failure the failing
 *                           tests, the first lines of each failure and the server log that belongs to it (found in
 *                           the work tree named by OUT/reports/PHASE/TREE)
 * tally OUT ROUNDS CLASS…   for .ci/stress: each class's rounds passed, from OUT/round-N/… reports
 * </pre>
 */
public final class Report {

    private static final int SLOWEST = 15;
    private static final int FAILURE_LINES = 8;

    record TestCase(String name, String kind, String message, String text) {
    }

    /** One class's report: where it came from (phase, module, reports folder) and what it holds. */
    record Suite(Path file, String phase, String module, String folder, String name, double seconds, int tests,
                 Instant started, List<TestCase> failed) {

        String pass() {
            String suffix = folder.replaceFirst("^(surefire|failsafe)-reports-?", "");
            return (phase.isEmpty() ? "" : phase + " · ") + module + (suffix.isEmpty() ? "" : " · " + suffix);
        }
    }

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "") {
            case "summary" -> summary(Path.of(args[1]), Integer.parseInt(args[2]));
            case "tally" -> tally(Path.of(args[1]), Integer.parseInt(args[2]), List.of(args).subList(3, args.length));
            default -> {
                System.err.println("usage: java .ci/Report.java summary OUT STATUS | tally OUT ROUNDS CLASS...");
                System.exit(2);
            }
        }
    }

    private static void summary(Path out, int status) throws Exception {
        phases(out.resolve("phases"), "Where CI's time went");
        phases(out.resolve("phases-beside"), "The lane beside the main pass (at nice 19, at the same time)");
        List<Suite> suites = suites(out.resolve("reports"), true);
        slowest(suites);
        if (status != 0) {
            failures(suites, out);
        }
    }

    private static void phases(Path file, String title) throws IOException {
        if (!Files.exists(file) || Files.size(file) == 0) {
            return;
        }
        List<String[]> lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank())
                .map(l -> l.split("\t", 2)).toList();
        System.out.println();
        System.out.println("== " + title);
        System.out.printf("%8s  %s%n", "seconds", "phase");
        for (int i = 0; i + 1 < lines.size(); i++) {
            long seconds = Long.parseLong(lines.get(i + 1)[0]) - Long.parseLong(lines.get(i)[0]);
            System.out.printf("%8d  %s%n", seconds, lines.get(i)[1]);
        }
        if (lines.size() > 1) {
            long total = Long.parseLong(lines.get(lines.size() - 1)[0]) - Long.parseLong(lines.get(0)[0]);
            System.out.printf("%8d  %s%n", total, "in all (" + formatMinutes(total) + ")");
        }
    }

    private static String formatMinutes(long seconds) {
        return seconds / 60 + " min " + seconds % 60 + " s";
    }

    private static void slowest(List<Suite> suites) {
        if (suites.isEmpty()) {
            return;
        }
        System.out.println();
        System.out.println("== The " + SLOWEST + " slowest test classes (of " + suites.size() + " class runs, "
                + suites.stream().mapToInt(Suite::tests).sum() + " tests, "
                + Math.round(suites.stream().mapToDouble(Suite::seconds).sum()) + " s in all)");
        System.out.printf("%8s  %5s  %-60s %s%n", "seconds", "tests", "class", "pass");
        suites.stream().sorted(Comparator.comparingDouble(Suite::seconds).reversed()).limit(SLOWEST)
                .forEach(s -> System.out.printf("%8.1f  %5d  %-60s %s%n", s.seconds(), s.tests(), s.name(), s.pass()));
        Map<String, double[]> byPass = new TreeMap<>();
        for (Suite suite : suites) {
            double[] sum = byPass.computeIfAbsent(suite.pass(), k -> new double[2]);
            sum[0] += suite.seconds();
            sum[1] += suite.tests();
        }
        System.out.println();
        System.out.println("== Test time by pass (the classes' own times; forks and server starts come on top)");
        System.out.printf("%8s  %5s  %s%n", "seconds", "tests", "pass");
        byPass.forEach((pass, sum) -> System.out.printf("%8.0f  %5.0f  %s%n", sum[0], sum[1], pass));
    }

    private static void failures(List<Suite> suites, Path out) throws IOException {
        List<Suite> failed = suites.stream().filter(s -> !s.failed().isEmpty()).toList();
        System.out.println();
        if (failed.isEmpty()) {
            System.out.println("== CI FAILED, but no test report names a failure: the build broke outside the tests.");
            for (String name : List.of("build.log", "beside.log")) {
                Path log = out.resolve(name);
                if (!Files.exists(log)) {
                    continue;
                }
                System.out.println("   The first errors of " + log + ":");
                try (Stream<String> lines = Files.lines(log)) {
                    lines.filter(l -> l.startsWith("[ERROR]") || l.startsWith("ERROR")).limit(15)
                            .forEach(l -> System.out.println("   " + l));
                }
            }
            return;
        }
        System.out.println("== CI FAILED: " + failed.stream().mapToInt(s -> s.failed().size()).sum()
                + " failing test(s) in " + failed.size() + " class run(s)");
        for (Suite suite : failed) {
            System.out.println();
            System.out.println("-- " + suite.name() + "  [" + suite.pass() + "]");
            for (TestCase test : suite.failed()) {
                System.out.println("   " + test.kind().toUpperCase() + " " + test.name());
                firstLines(test).forEach(l -> System.out.println("      " + l));
            }
            System.out.println("   report: " + suite.file());
            for (Path log : serverLogs(suite, treeOf(out, suite))) {
                System.out.println("   server log: " + log);
            }
        }
    }

    /** The work tree a phase's reports came from (OUT/reports/PHASE/TREE, written by .ci/run's collect). */
    private static Path treeOf(Path out, Suite suite) throws IOException {
        Path tree = out.resolve("reports").resolve(suite.phase()).resolve("TREE");
        return Files.exists(tree) ? Path.of(Files.readString(tree).strip()) : Path.of(".").toAbsolutePath();
    }

    /** The failure's message, then its stack down to the first frames, at most {@link #FAILURE_LINES} lines. */
    private static List<String> firstLines(TestCase test) {
        List<String> lines = new ArrayList<>();
        String text = test.text() == null || test.text().isBlank() ? test.message() : test.text();
        if (text == null) {
            return List.of("(no message)");
        }
        for (String line : text.strip().split("\\R")) {
            if (lines.size() == FAILURE_LINES) {
                lines.add("…");
                break;
            }
            lines.add(line.length() > 200 ? line.substring(0, 200) + "…" : line);
        }
        return lines;
    }

    /**
     * The server logs that belong to a failing class: the Arquillian server of its pass (each pass logs to a folder
     * of its own, it-tests/target/server-logs/main or /mariadb), and the logs of servers a test started itself (target/instances,
     * the stock WildFly, the Payara domain) that were written while the class ran.
     */
    private static List<Path> serverLogs(Suite suite, Path root) throws IOException {
        Path module = root.resolve(suite.module());
        Path target = module.resolve("target");
        List<Path> logs = new ArrayList<>();
        if (suite.folder().startsWith("failsafe")) {
            String pass = suite.folder().equals("failsafe-reports") ? "main"
                    : suite.folder().replaceFirst("^failsafe-reports-", "");
            Path arquillian = target.resolve("server-logs").resolve(pass).resolve("server.log");
            if (Files.exists(arquillian)) {
                logs.add(arquillian);
            }
        }
        if (!Files.isDirectory(target) || suite.started() == null) {
            return logs;
        }
        Instant from = suite.started().minusSeconds(5);
        Instant to = suite.started().plusMillis((long) (suite.seconds() * 1000)).plusSeconds(60);
        try (Stream<Path> files = Files.walk(target, 12)) {
            files.filter(p -> p.getFileName().toString().equals("server.log"))
                    .filter(p -> !logs.contains(p))
                    .filter(p -> within(p, from, to))
                    .forEach(logs::add);
        } catch (IOException | java.io.UncheckedIOException unreadable) {
            // a folder that went away meanwhile: the logs found so far still help
        }
        return logs;
    }

    private static boolean within(Path file, Instant from, Instant to) {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            return !modified.toInstant().isBefore(from) && !modified.toInstant().isAfter(to);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * .ci/stress: OUT/round-N/… holds each round's reports; prints each class's rounds passed out of ROUNDS. A class
     * without a report in a round failed that round (the round broke before it ran, or the name matched nothing).
     */
    private static void tally(Path out, int rounds, List<String> classes) throws Exception {
        Map<String, int[]> counts = new TreeMap<>();
        Map<String, List<String>> failures = new LinkedHashMap<>();
        for (String name : classes) {
            counts.put(name, new int[1]);
        }
        for (int round = 1; round <= rounds; round++) {
            Path dir = out.resolve("round-" + round);
            List<Suite> suites = suites(dir, false);
            for (String name : classes) {
                List<Suite> mine = suites.stream().filter(s -> s.name().endsWith("." + name)).toList();
                if (mine.isEmpty()) {
                    failures.computeIfAbsent(name, k -> new ArrayList<>())
                            .add("round " + round + ": no report (see " + out.resolve("round-" + round) + ".*.log)");
                } else if (mine.stream().allMatch(s -> s.failed().isEmpty())) {
                    counts.get(name)[0]++;
                } else {
                    TestCase first = mine.stream().flatMap(s -> s.failed().stream()).findFirst().orElseThrow();
                    failures.computeIfAbsent(name, k -> new ArrayList<>())
                            .add("round " + round + ": " + first.name() + ": " + firstLines(first).get(0));
                }
            }
        }
        System.out.println();
        System.out.println("== Rounds passed per class (" + rounds + " rounds, " + out + ")");
        counts.forEach((name, count) -> System.out.printf("%4d/%-4d %s%n", count[0], rounds, name));
        failures.forEach((name, lines) -> {
            System.out.println();
            System.out.println("-- " + name);
            lines.forEach(l -> System.out.println("   " + l));
        });
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    /** Every TEST-*.xml under {@code dir}: [PHASE/]MODULE…/target/FOLDER/TEST-x.xml, PHASE where {@code phased}. */
    private static List<Suite> suites(Path dir, boolean phased) throws Exception {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(p -> p.getFileName().toString().startsWith("TEST-")
                    && p.getFileName().toString().endsWith(".xml")).sorted().toList();
        }
        List<Suite> suites = new ArrayList<>();
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        for (Path file : files) {
            Path relative = dir.relativize(file);
            int target = lastIndexOf(relative, "target");
            if (target < (phased ? 2 : 1)) {
                continue;
            }
            String phase = phased ? relative.getName(0).toString() : "";
            String module = relative.subpath(phased ? 1 : 0, target).toString();
            String folder = relative.getName(target + 1).toString();
            Document document;
            try {
                document = factory.newDocumentBuilder().parse(file.toFile());
            } catch (Exception unreadable) {
                System.out.println("(unreadable report " + file + ": " + unreadable.getMessage() + ")");
                continue;
            }
            Element root = document.getDocumentElement();
            List<TestCase> failed = new ArrayList<>();
            NodeList cases = root.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testCase = (Element) cases.item(i);
                for (Node child = testCase.getFirstChild(); child != null; child = child.getNextSibling()) {
                    if (child instanceof Element e && (e.getTagName().equals("failure") || e.getTagName().equals("error"))) {
                        failed.add(new TestCase(testCase.getAttribute("name"), e.getTagName(), e.getAttribute("message"),
                                e.getTextContent()));
                        break;
                    }
                }
            }
            double seconds = parseSeconds(root.getAttribute("time"));
            // the report is written as its class ends, and copied with its time kept (cp -p)
            Instant started = Files.getLastModifiedTime(file).toInstant().minusMillis((long) (seconds * 1000));
            suites.add(new Suite(file, phase, module, folder, root.getAttribute("name"), seconds,
                    parseInt(root.getAttribute("tests")), started, failed));
        }
        return suites;
    }

    private static int lastIndexOf(Path path, String name) {
        for (int i = path.getNameCount() - 1; i >= 0; i--) {
            if (path.getName(i).toString().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static double parseSeconds(String text) {
        try {
            return Double.parseDouble(text.replace(",", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int parseInt(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

}
