package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every SQL text the product keeps as a constant comes out of {@link TableSchema#qualify} with each of its tables in
 * the schema set (docs/design.md D34): a statement the rewrite missed — a quoting or comment form it does not know, a
 * table named in a way it does not expect — would read or write the connection's default schema instead, silently.
 * Statements built at run time from these constants are covered through them.
 */
class EverySqlConstantQualifiedTest {

    private static final Pattern UNQUALIFIED = Pattern.compile(
            "(?<![\\w.$])(" + String.join("|", TableSchema.TABLES) + ")(?![\\w$])");

    @Test
    void noTableOfTheProductIsLeftUnqualifiedInAnySqlConstant() throws Exception {
        TableSchema own = TableSchema.of("own");
        List<String> checked = new ArrayList<>();
        List<String> missed = new ArrayList<>();
        for (Class<?> type : productClasses()) {
            for (Field field : type.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) || field.getType() != String.class) {
                    continue;
                }
                field.setAccessible(true);
                String sql = (String) field.get(null);
                if (sql == null || !UNQUALIFIED.matcher(sql).find() || !looksLikeSql(sql)) {
                    continue;
                }
                checked.add(type.getSimpleName() + "." + field.getName());
                String qualified = withoutQuotedTextAndComments(own.qualify(sql));
                if (UNQUALIFIED.matcher(qualified).find()) {
                    missed.add(type.getSimpleName() + "." + field.getName() + ": " + qualified);
                }
            }
        }
        assertThat(checked).as("SQL constants found").hasSizeGreaterThan(50);
        assertThat(missed).isEmpty();
    }

    private static boolean looksLikeSql(String text) {
        String head = text.stripLeading().toUpperCase(java.util.Locale.ROOT);
        return Stream.of("SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH", "LOCK", "ANALYZE", "VACUUM")
                .anyMatch(head::startsWith);
    }

    /** What the rewrite rightly leaves alone: text in quotes and comments. */
    private static String withoutQuotedTextAndComments(String sql) {
        return sql.replaceAll("'[^']*'", "''").replaceAll("\"[^\"]*\"", "\"\"").replaceAll("--[^\\n]*", "")
                .replaceAll("(?s)/\\*.*?\\*/", "");
    }

    private static List<Class<?>> productClasses() throws IOException, ClassNotFoundException {
        Path classes = Path.of("target", "classes");
        List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                types.add(Class.forName(name, false, EverySqlConstantQualifiedTest.class.getClassLoader()));
            }
        }
        return types;
    }
}
