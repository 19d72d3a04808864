package dev.projections.ee;

import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Enumeration;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * Where the deployment's {@link Settings} are read from. Where the server provides MicroProfile Config to the
 * deployment (WildFly with its {@code microprofile-config-smallrye} subsystem, Payara), through it — every source it
 * has, in its order — then every {@code META-INF/projection.properties} the deployment holds (in an ejb-jar or a jar
 * of the EAR's lib), then defaults; without it: system properties, then environment, then those files, then
 * defaults. Invalid values throw at start-up (the engine's start-up bean asks for them), which fails the deployment
 * naming key and value.
 */
final class DeploymentSettings {

    private static final Logger LOG = Logger.getLogger(DeploymentSettings.class.getName());

    static final String DEPLOYMENT_OVERRIDES = "META-INF/projection.properties";

    private DeploymentSettings() {
    }

    /** Where every setting is read from, the per-projection ones ({@code projection.<name>.<key>}) too. */
    static SettingSource source() {
        Properties deployment = deploymentOverrides();
        if (microProfileConfigVisible()) {
            try {
                SettingSource source = MicroProfileSettings.of(Thread.currentThread().getContextClassLoader(), deployment,
                        DEPLOYMENT_OVERRIDES);
                LOG.info("projection settings are read through MicroProfile Config, then " + DEPLOYMENT_OVERRIDES);
                return source;
            } catch (RuntimeException | LinkageError e) {
                LOG.warning("PRJ303: MicroProfile Config is visible but gave no Config (" + e + "); projection settings are read "
                        + "from system properties, the environment and " + DEPLOYMENT_OVERRIDES);
            }
        }
        return SettingSource.standard(System.getProperties(), System.getenv(), deployment);
    }

    /** Whether this module sees MicroProfile Config's API: the server adds it where its subsystem runs. */
    private static boolean microProfileConfigVisible() {
        try {
            Class.forName("org.eclipse.microprofile.config.ConfigProvider", false,
                    DeploymentSettings.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static Properties deploymentOverrides() {
        Properties properties = new Properties();
        try {
            Enumeration<URL> files = Thread.currentThread().getContextClassLoader().getResources(DEPLOYMENT_OVERRIDES);
            while (files.hasMoreElements()) {
                try (InputStream in = files.nextElement().openStream()) {
                    properties.load(in);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DEPLOYMENT_OVERRIDES, e);
        }
        return properties;
    }
}
