package dev.projections.it.support;

import org.jboss.arquillian.core.spi.LoadableExtension;

/** Registers {@link TestDatabaseConfigurer} with Arquillian in the test JVM. */
public class TestDatabaseExtension implements LoadableExtension {

    @Override
    public void register(ExtensionBuilder builder) {
        builder.observer(TestDatabaseConfigurer.class);
    }
}
