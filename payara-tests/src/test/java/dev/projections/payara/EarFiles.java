package dev.projections.payara;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/** EARs made from the built one for a test: modules and libraries left out, entries and modules added. */
final class EarFiles {

    private EarFiles() {
    }

    /** A copy of an EAR without some modules (left out of its application.xml too) and with one entry more. */
    static void rewrite(Path source, Path target, Set<String> withoutModules, String name, byte[] content)
            throws IOException {
        rewrite(source, target, withoutModules, library -> false, Map.of(name, content), "");
    }

    /**
     * A copy of an EAR without some modules and the library jars {@code withoutLibraries} accepts, with entries more;
     * {@code modules} is added to its application.xml (the {@code <module>} elements of added modules).
     */
    static void rewrite(Path source, Path target, Set<String> withoutModules, Predicate<String> withoutLibraries,
                        Map<String, byte[]> added, String modules) throws IOException {
        try (InputStream in = Files.newInputStream(source); ZipInputStream zipIn = new ZipInputStream(in);
             OutputStream out = Files.newOutputStream(target); ZipOutputStream zipOut = new ZipOutputStream(out)) {
            for (ZipEntry entry = zipIn.getNextEntry(); entry != null; entry = zipIn.getNextEntry()) {
                if (withoutModules.contains(entry.getName())
                        || entry.getName().startsWith("lib/") && withoutLibraries.test(entry.getName())) {
                    continue;
                }
                zipOut.putNextEntry(new ZipEntry(entry.getName()));
                if (entry.getName().equals("META-INF/application.xml")) {
                    zipOut.write(applicationXml(new String(zipIn.readAllBytes(), StandardCharsets.UTF_8),
                            withoutModules, modules).getBytes(StandardCharsets.UTF_8));
                } else {
                    zipIn.transferTo(zipOut);
                }
                zipOut.closeEntry();
            }
            for (Map.Entry<String, byte[]> entry : added.entrySet()) {
                zipOut.putNextEntry(new ZipEntry(entry.getKey()));
                zipOut.write(entry.getValue());
                zipOut.closeEntry();
            }
        }
    }

    private static String applicationXml(String xml, Set<String> withoutModules, String modules) {
        String result = xml;
        for (String module : withoutModules) {
            result = result.replaceAll("(?s)<module>(?:(?!</module>).)*?" + Pattern.quote(module)
                    + "(?:(?!</module>).)*?</module>", "");
        }
        int lastModule = result.lastIndexOf("</module>") + "</module>".length(); // the modules come first
        return result.substring(0, lastModule) + modules + result.substring(lastModule);
    }

    /** A jar of one text entry. */
    static byte[] jar(String name, String content) throws IOException {
        return jar(null, null, "", Map.of(name, content));
    }

    /**
     * A jar of the compiled classes directly in package directory {@code pkg} under {@code classes} ({@code null}:
     * none), each under {@code prefix}, and of {@code texts} (name → content).
     */
    static byte[] jar(Path classes, String pkg, String prefix, Map<String, String> texts) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            if (classes != null) {
                try (Stream<Path> files = Files.list(classes.resolve(pkg))) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                        zip.putNextEntry(new ZipEntry(prefix + pkg + file.getFileName()));
                        zip.write(Files.readAllBytes(file));
                        zip.closeEntry();
                    }
                }
            }
            for (Map.Entry<String, String> text : texts.entrySet()) {
                zip.putNextEntry(new ZipEntry(text.getKey()));
                zip.write(text.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
