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
 * java .ci/CentralBundle.java check ZIP [GNUPGHOME]        what Central would refuse, one line each; exit 1 if any
 * </pre>
 *
 * The check: release versions only; coordinates that match the path; a POM per component with name, description,
 * url, licence, developer and SCM (name in the POM itself, the rest also from a parent in the bundle, as Maven
 * inherits it); sources and javadoc beside every jar or war; an .asc signature and .md5 and .sha1 checksums of every
 * file, the checksums matching and, given the GnuPG home holding the public key, every signature good.
 */
public class CentralBundle {

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("bundle")) {
            int files = bundle(Path.of(args[1]), Path.of(args[2]));
            System.out.println("central bundle: " + files + " files in " + args[2]);
        } else if (args.length >= 2 && args[0].equals("check")) {
            List<String> problems = check(Path.of(args[1]), args.length > 2 ? Path.of(args[2]) : null);
            problems.forEach(problem -> System.out.println("central bundle: " + problem));
            if (!problems.isEmpty()) {
                System.exit(1);
            }
        } else {
            System.err.println("usage: CentralBundle bundle REPOSITORY ZIP | check ZIP [GNUPGHOME]");
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

    static List<String> check(Path zip, Path gnupgHome) throws Exception {
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
            } else if (scratch != null && !verified(gnupgHome, scratch, entry.getValue(), signature)) {
                problems.add(name + ": its signature does not verify");
            }
            String file = name.substring(name.lastIndexOf('/') + 1);
            if ((file.endsWith(".jar") || file.endsWith(".war")) && !file.endsWith("-sources.jar")
                    && !file.endsWith("-javadoc.jar") && mainArtifact(name, poms)) {
                String base = name.substring(0, name.length() - 4);
                for (String classifier : List.of("-sources.jar", "-javadoc.jar")) {
                    if (!entries.containsKey(base + classifier)) {
                        problems.add(name + ": no " + classifier.substring(1) + " beside it");
                    }
                }
            }
        }
        System.out.println("central bundle: " + entries.size() + " files, " + components + " components checked");
        return problems;
    }

    /** Whether {@code name} is a component's main file (artifactId-version.ext), not one with a classifier. */
    private static boolean mainArtifact(String name, Map<String, Document> poms) {
        String dir = name.substring(0, name.lastIndexOf('/') + 1);
        String file = name.substring(dir.length());
        for (String pom : poms.keySet()) {
            if (pom.startsWith(dir) && pom.indexOf('/', dir.length()) < 0) {
                String base = pom.substring(dir.length(), pom.length() - ".pom".length());
                return file.startsWith(base + ".");
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

    private static boolean verified(Path gnupgHome, Path scratch, byte[] content, byte[] signature) throws Exception {
        Path file = scratch.resolve("file");
        Path asc = scratch.resolve("file.asc");
        Files.write(file, content);
        Files.write(asc, signature);
        Process gpg = new ProcessBuilder("gpg", "--homedir", gnupgHome.toString(), "--batch", "--verify",
                asc.toString(), file.toString()).redirectErrorStream(true).start();
        gpg.getInputStream().readAllBytes();
        return gpg.waitFor() == 0;
    }
}
