import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The release bundle in the format Maven Central's Publisher Portal takes (a zip of the Maven repository layout) and
 * its check against Central's published requirements (CONTRIBUTING.md "Releasing"):
 *
 * <pre>
 * java .ci/CentralBundle.java bundle REPOSITORY ZIP        the files the release deploy wrote, without maven-metadata
 * java .ci/CentralBundle.java check ZIP [GNUPGHOME FINGERPRINT]
 *                                                          what Central would refuse, one line each; exit 1 if any
 * </pre>
 *
 * The check: release versions only; coordinates that match the path; a POM per component with name, description,
 * url, licence, developer and SCM (name in the POM itself, the rest also from a parent in the bundle, as Maven
 * inherits it); each file named artifactId-version[-classifier].ext in its component's folder, a folder with no POM
 * refused; the main file of a jar, ejb or war packaging present, and sources and javadoc beside every main jar or war;
 * an armoured .asc signature and .md5 and .sha1 checksums of every file, the checksums matching and, given the GnuPG
 * home holding the public key and the key's fingerprint, every signature good and made by that key.
 */
public class CentralBundle {

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("bundle")) {
            int files = bundle(Path.of(args[1]), Path.of(args[2]));
            System.out.println("central bundle: " + files + " files in " + args[2]);
        } else if (args.length >= 2 && args[0].equals("check")) {
            List<String> problems = check(Path.of(args[1]), args.length > 3 ? Path.of(args[2]) : null,
                    args.length > 3 ? args[3] : null);
            problems.forEach(problem -> System.out.println("central bundle: " + problem));
            if (!problems.isEmpty()) {
                System.exit(1);
            }
        } else {
            System.err.println("usage: CentralBundle bundle REPOSITORY ZIP | check ZIP [GNUPGHOME FINGERPRINT]");
            System.exit(2);
        }
    }

    static int bundle(Path repository, Path zip) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(repository)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(file -> !file.getFileName().toString().startsWith("maven-metadata"))
                    .sorted().toList();
        }
        try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream bundle = new ZipOutputStream(out)) {
            for (Path file : files) {
                bundle.putNextEntry(new ZipEntry(repository.relativize(file).toString().replace('\\', '/')));
                Files.copy(file, bundle);
                bundle.closeEntry();
            }
        }
        return files.size();
    }

    static List<String> check(Path zip, Path gnupgHome, String fingerprint) throws Exception {
        Map<String, byte[]> entries = new TreeMap<>();
        try (InputStream in = Files.newInputStream(zip); ZipInputStream bundle = new ZipInputStream(in)) {
            for (ZipEntry entry; (entry = bundle.getNextEntry()) != null; ) {
                if (!entry.isDirectory()) {
                    entries.put(entry.getName(), bundle.readAllBytes());
                }
            }
        }
        List<String> problems = new ArrayList<>();
        if (entries.isEmpty()) {
            problems.add(zip + " holds no file");
            return problems;
        }
        Map<String, Document> poms = new LinkedHashMap<>();
        for (String name : entries.keySet()) {
            if (name.endsWith(".pom")) {
                poms.put(name, parse(entries.get(name)));
            }
        }
        int components = 0;
        for (var pom : poms.entrySet()) {
            components++;
            problems.addAll(pomProblems(pom.getKey(), pom.getValue(), poms));
        }
        if (components == 0) {
            problems.add("no POM in the bundle");
        }
        problems.addAll(layoutProblems(entries.keySet(), poms));
        Path scratch = gnupgHome == null ? null : Files.createTempDirectory("central-bundle");
        for (var entry : entries.entrySet()) {
            String name = entry.getKey();
            if (isChecksum(name) || name.endsWith(".asc")) {
                continue;
            }
            for (String algorithm : List.of("MD5", "SHA-1")) {
                String suffix = algorithm.equals("MD5") ? ".md5" : ".sha1";
                byte[] sum = entries.get(name + suffix);
                if (sum == null) {
                    problems.add(name + ": no " + suffix + " checksum");
                } else if (!new String(sum, StandardCharsets.US_ASCII).strip().split("\\s+")[0]
                        .equalsIgnoreCase(digest(algorithm, entry.getValue()))) {
                    problems.add(name + ": its " + suffix + " checksum does not match");
                }
            }
            byte[] signature = entries.get(name + ".asc");
            if (signature == null) {
                problems.add(name + ": no .asc signature");
            } else if (!new String(signature, StandardCharsets.US_ASCII).strip().startsWith("-----BEGIN PGP SIGNATURE-----")) {
                problems.add(name + ".asc: not an armoured PGP signature");
            } else if (scratch != null && !verified(gnupgHome, fingerprint, scratch, entry.getValue(), signature)) {
                problems.add(name + ": its signature does not verify as made by key " + fingerprint);
            }
        }
        System.out.println("central bundle: " + entries.size() + " files, " + components + " components checked");
        return problems;
    }

    /**
     * Each file in a folder of a component with its POM, named after it; the main file of a jar, ejb or war packaging
     * there, and sources and javadoc beside a main jar or war (Central requires them for jar packagings; a war's code is
     * in a jar-like file too).
     */
    private static List<String> layoutProblems(Iterable<String> names, Map<String, Document> poms) {
        List<String> problems = new ArrayList<>();
        Map<String, String> baseByFolder = new TreeMap<>();
        for (var pom : poms.entrySet()) {
            String folder = pom.getKey().substring(0, pom.getKey().lastIndexOf('/') + 1);
            String base = pom.getKey().substring(folder.length(), pom.getKey().length() - ".pom".length());
            baseByFolder.put(folder, base);
            String packaging = text(pom.getValue().getDocumentElement(), "packaging");
            packaging = packaging == null ? "jar" : packaging;
            String main = switch (packaging) {
                case "jar", "ejb", "maven-plugin", "bundle" -> ".jar";
                case "war" -> ".war";
                default -> null; // pom, or a packaging whose files this check does not know
            };
            if (main != null && !contains(names, folder + base + main)) {
                problems.add(pom.getKey() + ": packaging " + packaging + " but no " + base + main);
            }
        }
        for (String name : names) {
            if (isChecksum(name) || name.endsWith(".asc")) {
                continue;
            }
            String folder = name.substring(0, name.lastIndexOf('/') + 1);
            String file = name.substring(folder.length());
            String base = baseByFolder.get(folder);
            if (base == null) {
                problems.add(name + ": in a folder with no POM");
                continue;
            }
            if (!file.startsWith(base + ".") && !file.startsWith(base + "-")) {
                problems.add(name + ": not named " + base + "[-classifier].ext");
                continue;
            }
            boolean mainJarOrWar = file.equals(base + ".jar") || file.equals(base + ".war");
            if (mainJarOrWar) {
                for (String classifier : List.of("-sources.jar", "-javadoc.jar")) {
                    if (!contains(names, folder + base + classifier)) {
                        problems.add(name + ": no " + classifier.substring(1) + " beside it");
                    }
                }
            }
        }
        return problems;
    }

    private static boolean contains(Iterable<String> names, String name) {
        for (String each : names) {
            if (each.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> pomProblems(String path, Document pom, Map<String, Document> poms) {
        List<String> problems = new ArrayList<>();
        Element project = pom.getDocumentElement();
        String groupId = inheritedText(project, "groupId", poms);
        String artifactId = text(project, "artifactId");
        String version = inheritedText(project, "version", poms);
        String[] parts = path.split("/");
        if (groupId == null || artifactId == null || version == null) {
            problems.add(path + ": groupId, artifactId and version must all be given");
            return problems;
        }
        String expected = groupId.replace('.', '/') + "/" + artifactId + "/" + version + "/" + artifactId + "-"
                + version + ".pom";
        if (!path.equals(expected)) {
            problems.add(path + ": its coordinates say " + expected);
        }
        if (version.endsWith("-SNAPSHOT")) {
            problems.add(path + ": version " + version + " is a snapshot; Central takes releases only");
        }
        if (parts.length < 4) {
            problems.add(path + ": not in a groupId/artifactId/version folder");
        }
        if (text(project, "name") == null) {
            problems.add(path + ": no <name>");
        }
        for (String element : List.of("description", "url")) {
            if (inheritedText(project, element, poms) == null) {
                problems.add(path + ": no <" + element + ">, in it or a parent in the bundle");
            }
        }
        Element licence = inherited(project, "licenses", poms);
        if (licence == null || first(licence, "license") == null || text(first(licence, "license"), "name") == null) {
            problems.add(path + ": no <licenses> with a named licence");
        }
        Element developers = inherited(project, "developers", poms);
        if (developers == null || first(developers, "developer") == null
                || text(first(developers, "developer"), "name") == null) {
            problems.add(path + ": no <developers> with a named developer");
        }
        Element scm = inherited(project, "scm", poms);
        if (scm == null || text(scm, "url") == null || text(scm, "connection") == null) {
            problems.add(path + ": no <scm> with url and connection");
        }
        return problems;
    }

    /** The child {@code name} of the project, else of its parent's POM in the bundle, and so on up. */
    private static Element inherited(Element project, String name, Map<String, Document> poms) {
        for (Element at = project; at != null; at = parentOf(at, poms)) {
            Element found = first(at, name);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static String inheritedText(Element project, String name, Map<String, Document> poms) {
        String own = text(project, name);
        if (own != null) {
            return own;
        }
        Element parent = first(project, "parent");
        if (parent != null && (name.equals("groupId") || name.equals("version"))) {
            return text(parent, name);
        }
        Element found = inherited(project, name, poms);
        return found == null ? null : found.getTextContent().strip();
    }

    private static Element parentOf(Element project, Map<String, Document> poms) {
        Element parent = first(project, "parent");
        if (parent == null) {
            return null;
        }
        String path = text(parent, "groupId").replace('.', '/') + "/" + text(parent, "artifactId") + "/"
                + text(parent, "version") + "/" + text(parent, "artifactId") + "-" + text(parent, "version") + ".pom";
        Document pom = poms.get(path);
        return pom == null ? null : pom.getDocumentElement();
    }

    private static Element first(Element parent, String name) {
        for (Node child = parent.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element element && element.getLocalName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    private static String text(Element parent, String name) {
        Element element = first(parent, name);
        String text = element == null ? null : element.getTextContent().strip();
        return text == null || text.isEmpty() ? null : text;
    }

    private static Document parse(byte[] xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(xml));
    }

    private static boolean isChecksum(String name) {
        return name.endsWith(".md5") || name.endsWith(".sha1") || name.endsWith(".sha256") || name.endsWith(".sha512");
    }

    private static String digest(String algorithm, byte[] content) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(content));
    }

    /** Whether {@code signature} is good for {@code content} and made by the key {@code fingerprint}. */
    private static boolean verified(Path gnupgHome, String fingerprint, Path scratch, byte[] content, byte[] signature)
            throws Exception {
        Path file = scratch.resolve("file");
        Path asc = scratch.resolve("file.asc");
        Files.write(file, content);
        Files.write(asc, signature);
        Process gpg = new ProcessBuilder("gpg", "--homedir", gnupgHome.toString(), "--batch", "--status-fd", "1",
                "--verify", asc.toString(), file.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String status = new String(gpg.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        // VALIDSIG <fingerprint of the signing (sub)key> ... <primary key fingerprint>
        boolean byTheKey = status.lines().anyMatch(line -> line.startsWith("[GNUPG:] VALIDSIG ")
                && (line.contains(" " + fingerprint + " ") || line.endsWith(" " + fingerprint)));
        return gpg.waitFor() == 0 && byTheKey;
    }
}
