package dev.projections;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The BOM applications import takes every version from the build (docs/design.md D32): its own and the product's
 * from the parent's version, the bundled libraries' from the parent's properties, so none can drift from what the
 * build was tested with. The flattened, published BOM carries those properties; .ci/release-check reads it.
 */
class BomVersionsTest {

    @Test
    void everyVersionTheBomManagesIsTheBuildsOwnNotACopy() throws Exception {
        String parent = Files.readString(Path.of("..", "pom.xml"));
        String bom = Files.readString(Path.of("..", "projections-bom", "pom.xml"));
        assertThat(bom).contains("<artifactId>projections-parent</artifactId>");
        List<String> versions = managedVersions(bom);
        assertThat(versions).isNotEmpty();
        for (String version : versions) {
            Matcher property = Pattern.compile("\\$\\{([^}]+)}").matcher(version);
            assertThat(property.matches()).as("a literal version in the BOM: " + version).isTrue();
            String name = property.group(1);
            assertThat(name.equals("project.version") || parent.contains("<" + name + ">"))
                    .as(name + " is a property of the parent").isTrue();
        }
        assertThat(versions).contains("${liquibase.version}", "${micrometer.version}");
    }

    private static List<String> managedVersions(String pom) {
        String managed = pom.substring(pom.indexOf("<dependencyManagement>"), pom.indexOf("</dependencyManagement>"));
        Matcher m = Pattern.compile("<version>([^<]+)</version>").matcher(managed);
        List<String> versions = new ArrayList<>();
        while (m.find()) {
            versions.add(m.group(1));
        }
        return versions;
    }
}
