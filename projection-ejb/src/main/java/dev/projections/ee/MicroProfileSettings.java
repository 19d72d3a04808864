package dev.projections.ee;

import dev.projections.config.SettingSource;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;

/**
 * The settings through MicroProfile Config, where the server provides it: every config source of the deployment in
 * Config's own order (system properties, the environment with its name mapping, the server's sources such as
 * WildFly's {@code config-source} resources and directory sources, the deployment's
 * {@code microprofile-config.properties}, profiles), then the deployment's {@code META-INF/projection.properties},
 * then the default. Loaded only after {@link DeploymentSettings} found the API visible, so a server without it never
 * links this class.
 */
final class MicroProfileSettings implements SettingSource {

    private final Config config;
    private final Properties deployment;
    /** Where {@code deployment} was read from, the origin its values are named by. */
    private final String deploymentFile;

    MicroProfileSettings(Config config, Properties deployment, String deploymentFile) {
        this.config = config;
        this.deployment = deployment;
        this.deploymentFile = deploymentFile;
    }

    static SettingSource of(ClassLoader loader, Properties deployment, String deploymentFile) {
        return new MicroProfileSettings(org.eclipse.microprofile.config.ConfigProvider.getConfig(loader), deployment,
                deploymentFile);
    }

    @Override
    public Found find(String key) {
        ConfigValue value = config.getConfigValue(key);
        if (value != null && value.getValue() != null) {
            return new Found(value.getValue(), "MicroProfile Config " + value.getSourceName());
        }
        String packaged = deployment.getProperty(key);
        return packaged == null ? null : new Found(packaged, deploymentFile);
    }

    @Override
    public Set<String> names() {
        Set<String> names = new TreeSet<>();
        config.getPropertyNames().forEach(names::add);
        names.addAll(deployment.stringPropertyNames());
        return names;
    }
}
