package dev.projections.config;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where setting values come from, each found with the name of its origin (for the console's "where it came from").
 * The standard source reads a system property ({@code projection.batch-size}), then the environment
 * ({@code PROJECTION_BATCH_SIZE}), then the deployment's {@code META-INF/projection.properties}: MicroProfile Config's
 * order, so an operator overrides a packaged value at start without repackaging.
 */
public interface SettingSource {

    /** A value and where it was found ({@code system property projection.batch-size}, …). */
    record Found(String value, String origin) {
    }

    /** The value of {@code key} (a property name such as {@code projection.batch-size}), or null when unset. */
    Found find(String key);

    /**
     * Every property name this source can list, in property form ({@code projection.…}); an environment variable is
     * listed by its own name ({@code PROJECTION_…}). Used to find keys naming a projection that does not exist.
     */
    Set<String> names();

    /** A source of nothing: every setting at its default. */
    SettingSource NONE = new SettingSource() {
        @Override
        public Found find(String key) {
            return null;
        }

        @Override
        public Set<String> names() {
            return Set.of();
        }
    };

    /** System properties, then the environment, then the deployment's properties. */
    static SettingSource standard(Properties system, Map<String, String> environment, Properties deployment) {
        return new SettingSource() {
            @Override
            public Found find(String key) {
                String value = system.getProperty(key);
                if (value != null) {
                    return new Found(value, "system property " + key);
                }
                String variable = Settings.environmentName(key);
                value = environment.get(variable);
                if (value != null) {
                    return new Found(value, "environment " + variable);
                }
                value = deployment.getProperty(key);
                return value == null ? null : new Found(value, ProjectionSettings.PACKAGED_FILE);
            }

            @Override
            public Set<String> names() {
                Set<String> names = new TreeSet<>(system.stringPropertyNames());
                names.addAll(environment.keySet());
                names.addAll(deployment.stringPropertyNames());
                return names;
            }
        };
    }

    /** For tests: one map of property names to values, as if each were a system property. */
    static SettingSource of(Map<String, String> values) {
        Properties properties = new Properties();
        properties.putAll(values);
        return standard(properties, Map.of(), new Properties());
    }

    /** The values alone, for {@link Settings#from}. */
    default String value(String key) {
        Found found = find(key);
        return found == null ? null : found.value();
    }
}
