package dev.projections.ee;

import dev.projections.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Enumeration;
import java.util.Properties;

/**
 * Reads the deployment's {@link Settings}: system properties, then environment, then every
 * {@code META-INF/projection.properties} the deployment holds (in an ejb-jar or a jar of the EAR's lib), then
 * defaults. Invalid
 * values throw at start-up (the engine's start-up bean asks for them), which fails the deployment naming key
 * and value.
 */
final class DeploymentSettings {

    static final String DEPLOYMENT_OVERRIDES = "META-INF/projection.properties";

    private DeploymentSettings() {
    }

    static Settings load() {
        return Settings.load(deploymentOverrides());
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
