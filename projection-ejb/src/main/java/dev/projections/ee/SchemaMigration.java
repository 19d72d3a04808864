package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.config.Settings;
import dev.projections.refresh.RefreshCommits;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import dev.projections.store.ChangelogUpdate;
import dev.projections.store.SchemaCheck;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.logging.Logger;
import java.util.Map;
import java.time.Duration;

/**
 * Brings the product's tables up to date at deployment ({@code projection.schema=update}), or checks them
 * without writing ({@code validate}) and fails the deployment printing the DDL. It runs without a
 * container transaction because Liquibase commits itself (docs/pitfalls.md #13); reading the settings here
 * first makes invalid settings fail the deployment before anything else starts.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SchemaMigration {

    static final String CHANGELOG = ChangelogUpdate.CHANGELOG;
    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());

    @Inject
    EngineResources resources;


    @Inject
    Foundation foundation;

    @Inject
    JtaTransactions transactions;

    @Inject
    ProjectionRegistry registry;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // on the method too: Payara ignores the class's for lifecycle callbacks (docs/pitfalls.md #61)
    void migrate() {
        Settings settings = foundation.settings();
        // each projection's settings, checked even when disabled as the global ones are: a key naming no projection,
        // or a bad value, fails the deployment here (the projection beans are created for it, at start-up)
        // and synchronous-commit where the database has none for one transaction (the engine is built lazily)
        RefreshCommits.requireSupported(registry.settings(), foundation.store().dialect());
        if (!settings.enabled()) {
            return;
        }
        UnitProviderCheck.require(); // a unit on another provider than Hibernate would never be marked
        if (settings.schema() == Settings.SchemaMode.VALIDATE) {
            validate();
        } else {
            update();
        }
        checkEngineIsolation();
    }

    /**
     * One engine transaction at deployment, as every later one begins (docs/design.md D28): on MariaDB/MySQL a
     * datasource whose transactions begin before the engine can choose READ COMMITTED (XA) and at another level
     * fails the deployment here, naming the setting, rather than every sweep from then on.
     */
    private void checkEngineIsolation() {
        try {
            transactions.inNewTransaction(Duration.ofSeconds(30), connection -> null);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("projection datasource " + resources.dataSourceName() + ": "
                    + e.getMessage(), e);
        } catch (Exception e) {
            throw new IllegalStateException("projection datasource " + resources.dataSourceName()
                    + " could not run a transaction: " + e.getMessage(), e);
        }
    }

    private void update() {
        Settings settings = foundation.settings();
        // foundation.dataSource() names the product's tables in projection.table-schema, if set: the change sets' raw
        // SQL included, with no search_path or USE left on the pooled connection (docs/design.md D34)
        try (Connection connection = foundation.dataSource().getConnection()) {
            ChangelogUpdate.requireSchema(connection, resources.tables(), Settings.TABLE_SCHEMA);
            ChangelogUpdate.tablesLeftBehind(connection, resources.tables(), Settings.TABLE_SCHEMA)
                    .ifPresent(LOG::warning);
            // the changelog is read through this module's class loader, which sees projection-liquibase in the EAR's lib/
            String product = new ChangelogUpdate(resources.tables(), settings.changelogTable(),
                    settings.changelogLockTable()).update(connection, getClass().getClassLoader(), null, Map.of());
            LOG.info("projection schema is up to date (" + product + ", " + resources.tables() + ", Liquibase tables "
                    + settings.changelogTable() + " and " + settings.changelogLockTable() + ")");
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("projection schema migration failed: " + e.getMessage(), e);
        }
    }

    private void validate() {
        try (Connection connection = foundation.dataSource().getConnection()) {
            ChangelogUpdate.requireSchema(connection, resources.tables(), Settings.TABLE_SCHEMA);
            SchemaCheck.ofShippedDdl(getClass().getClassLoader()).require(connection, resources.tables());
            LOG.info("projection schema validated (projection.schema=validate, " + resources.tables() + ")");
        } catch (SQLException e) {
            throw new IllegalStateException("projection schema validation could not read the catalog: " + e.getMessage(), e);
        }
    }
}
