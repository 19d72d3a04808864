package dev.projections;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The BOM applications import names the versions of the bundled libraries the build itself uses. */
class BomVersionsTest {

    @Test
    void theBomsLiquibaseAndMicrometerVersionsAreTheBuildsOwn() throws Exception {
        String parent = Files.readString(Path.of("..", "pom.xml"));
        String bom = Files.readString(Path.of("..", "projections-bom", "pom.xml"));
        assertThat(managedVersion(bom, "liquibase-core")).isEqualTo(property(parent, "liquibase.version"));
        assertThat(managedVersion(bom, "micrometer-registry-prometheus")).isEqualTo(property(parent, "micrometer.version"));
    }

    private static String property(String pom, String name) {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(pom);
        assertThat(m.find()).as(name).isTrue();
        return m.group(1);
    }

    private static String managedVersion(String pom, String artifactId) {
        Matcher m = Pattern.compile("<artifactId>" + Pattern.quote(artifactId) + "</artifactId>\\s*<version>([^<]+)</")
                .matcher(pom);
        assertThat(m.find()).as(artifactId).isTrue();
        return m.group(1);
    }
}
