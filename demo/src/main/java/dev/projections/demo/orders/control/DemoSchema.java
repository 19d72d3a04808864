package dev.projections.demo.orders.control;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.Connection;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

/** The demo's own tables (write model and read models), from its own Liquibase changelog. */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class DemoSchema {

    /** The server's default datasource, like the demo's persistence unit: ProjectionDS on WildFly, jdbc/__default on Payara. */
    @Resource(lookup = "java:comp/DefaultDataSource")
    DataSource dataSource;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // on the method too: Payara ignores the class's for lifecycle callbacks (docs/pitfalls.md #61)
    void migrate() {
        try (Connection connection = dataSource.getConnection()) {
            Database database = DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(connection));
            // the demo is an application of its own: its own history and lock, no wait behind the product's
            database.setDatabaseChangeLogTableName("demo_databasechangelog");
            database.setDatabaseChangeLogLockTableName("demo_databasechangeloglock");
            new Liquibase("dev/projections/demo/db/changelog.xml",
                    new ClassLoaderResourceAccessor(getClass().getClassLoader()), database)
                    .update(new Contexts(), new LabelExpression());
        } catch (Exception e) {
            throw new IllegalStateException("demo schema migration failed: " + e.getMessage(), e);
        }
    }
}
