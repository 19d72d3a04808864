package dev.projections.it.deployment;

import static dev.projections.it.support.TestSql.execute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.it.support.Deployments;
import dev.projections.it.support.Management;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Wrong configuration fails the deployment, and the failure names the key or the entity and path. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DeploymentFailureIT {

    private static final String OTHER_DATASOURCE = "java:jboss/datasources/OtherDS";

    @ArquillianResource
    Deployer deployer;


    @Deployment(name = "batch-size-zero", managed = false, testable = false)
    static EnterpriseArchive batchSizeZero() {
        return named("batch-size-zero", Map.of("projection.batch-size", "0"));
    }

    @Deployment(name = "negative-lease", managed = false, testable = false)
    static EnterpriseArchive negativeLease() {
        return named("negative-lease", Map.of("projection.lease-time", "-5s"));
    }

    @Deployment(name = "unparseable-sweep", managed = false, testable = false)
    static EnterpriseArchive unparseableSweep() {
        return named("unparseable-sweep", Map.of("projection.sweep-interval", "soon"));
    }

    @Deployment(name = "retry-over-max", managed = false, testable = false)
    static EnterpriseArchive retryOverMax() {
        return named("retry-over-max", Map.of("projection.retry-delay", "10m", "projection.max-retry-delay", "5m"));
    }

    @Deployment(name = "per-projection-mistakes", managed = false, testable = false)
    static EnterpriseArchive perProjectionMistakes() {
        return named("per-projection-mistakes", Map.of("projection.ordr-search.max-attempts", "3",
                "projection.order-search.max-attempts", "-1", "projection.customer-stats.lease-time", "1s",
                "projection.customer-stats.workers", "5"));
    }

    @Deployment(name = "disabled-with-a-misspelt-key", managed = false, testable = false)
    static EnterpriseArchive disabledWithAMisspeltKey() {
        return named("disabled-with-a-misspelt-key", Map.of("projection.enabled", "false",
                "projection.order-search.max-atempts", "3"));
    }

    @Deployment(name = "too-many-workers", managed = false, testable = false)
    static EnterpriseArchive tooManyWorkers() {
        return named("too-many-workers", Map.of("projection.workers", "1000"));
    }

    @Deployment(name = "no-such-transaction-manager", managed = false, testable = false)
    static EnterpriseArchive noSuchTransactionManager() {
        return named("no-such-transaction-manager", Map.of("projection.transaction-manager", "java:/NoSuchTransactionManager"));
    }

    @Deployment(name = "valid", managed = false, testable = false)
    static EnterpriseArchive valid() {
        return named("valid", Map.of());
    }

    @Deployment(name = "validate-schema", managed = false, testable = false)
    static EnterpriseArchive validateSchema() {
        return named("validate-schema", Map.of("projection.schema", "validate"));
    }

    @Deployment(name = "projection-in-a-war", managed = false, testable = false)
    static EnterpriseArchive projectionInAWar() {
        EnterpriseArchive ear = named("projection-in-a-war", Map.of());
        org.jboss.shrinkwrap.api.spec.WebArchive web = ear.getAsType(org.jboss.shrinkwrap.api.spec.WebArchive.class,
                "demo-web.war");
        web.addClass(ProjectionInAWar.class);
        ear.delete("demo-web.war");
        ear.addAsModule(web);
        return ear;
    }

    @Deployment(name = "bad-key-path", managed = false, testable = false)
    static EnterpriseArchive badKeyPath() {
        EnterpriseArchive ear = named("bad-key-path", Map.of());
        // a persistence unit in a jar of the EAR's lib: deployed without being listed in application.xml
        ear.addAsLibrary(ShrinkWrap.create(JavaArchive.class, "bad-path.jar")
                .addClass(BadPathEntity.class)
                .addAsManifestResource(new StringAsset("""
                        <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                          <persistence-unit name="bad-path" transaction-type="JTA">
                            <jta-data-source>java:jboss/datasources/ProjectionDS</jta-data-source>
                            <class>dev.projections.it.deployment.BadPathEntity</class>
                            <exclude-unlisted-classes>true</exclude-unlisted-classes>
                            <properties><property name="hibernate.hbm2ddl.auto" value="none"/></properties>
                          </persistence-unit>
                        </persistence>"""), "persistence.xml"));
        return ear;
    }


    /** Beside the demo's unit (the default datasource, ProjectionDS) a projected unit on OtherDS; no setting. */
    @Deployment(name = "unit-on-another-database", managed = false, testable = false)
    static EnterpriseArchive unitOnAnotherDatabase() {
        return withUnitOnOtherDatasource(named("unit-on-another-database", Map.of()));
    }

    /** The same with projection.datasource set to ProjectionDS. */
    @Deployment(name = "unit-on-another-database-than-the-setting", managed = false, testable = false)
    static EnterpriseArchive unitOnAnotherDatabaseThanTheSetting() {
        return withUnitOnOtherDatasource(named("unit-on-another-database-than-the-setting",
                Map.of("projection.datasource", "java:jboss/datasources/ProjectionDS")));
    }

    private static EnterpriseArchive withUnitOnOtherDatasource(EnterpriseArchive ear) {
        ear.addAsLibrary(ShrinkWrap.create(JavaArchive.class, "elsewhere.jar")
                .addClass(ElsewhereEntity.class)
                .addAsManifestResource(new StringAsset("""
                        <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                          <persistence-unit name="elsewhere" transaction-type="JTA">
                            <jta-data-source>%s</jta-data-source>
                            <class>dev.projections.it.deployment.ElsewhereEntity</class>
                            <exclude-unlisted-classes>true</exclude-unlisted-classes>
                            <properties><property name="hibernate.hbm2ddl.auto" value="none"/></properties>
                          </persistence-unit>
                        </persistence>""".formatted(OTHER_DATASOURCE)), "persistence.xml"));
        return ear;
    }

    /** Arquillian needs a distinct archive name per deployment of a class. */
    private static EnterpriseArchive named(String name, Map<String, String> settings) {
        return ShrinkWrap.create(EnterpriseArchive.class, name + ".ear").merge(Deployments.ear(settings));
    }

    @Test
    void aBatchSizeBelowOneFailsTheDeploymentNamingKeyAndValue() {
        assertDeploymentFails("batch-size-zero", "projection.batch-size must be >= 1, was 0");
    }

    @Test
    void aTransactionManagerNameTheServerDoesNotBindFailsTheDeploymentNamingKeyAndValue() {
        assertDeploymentFails("no-such-transaction-manager",
                "projection.transaction-manager=java:/NoSuchTransactionManager", "no JTA TransactionManager");
    }

    @Test
    void aNegativeLeaseFailsTheDeploymentNamingKeyAndValue() {
        assertDeploymentFails("negative-lease", "projection.lease-time must be a positive duration, was", "-5s");
    }

    @Test
    void anUnparseableDurationFailsTheDeploymentNamingKeyAndValue() {
        assertDeploymentFails("unparseable-sweep", "projection.sweep-interval must be a duration", "soon");
    }

    @Test
    void aRetryDelayOverItsCapFailsTheDeployment() {
        assertDeploymentFails("retry-over-max", "projection.retry-delay (10m) must not exceed projection.max-retry-delay (5m)");
    }

    @Test
    void perProjectionKeysNamingNoProjectionOrWithABadValueFailTheDeploymentTogetherNamingEach() {
        assertDeploymentFails("per-projection-mistakes",
                "projection.ordr-search.max-attempts=3 names no deployed projection (deployed: customer-stats, order-search)",
                "projection.order-search.max-attempts must be 0..1000000, was -1",
                "projection.customer-stats.lease-time must be at least 2s",
                "projection.customer-stats.workers must be 1..4, was 5");
    }

    @Test
    void aMisspeltPerProjectionKeyFailsTheDeploymentEvenWithTheEngineDisabled() {
        assertDeploymentFails("disabled-with-a-misspelt-key",
                "projection.order-search.max-atempts=3: max-atempts is not a setting a projection can have");
    }

    @Test
    void tooManyWorkersFailTheDeploymentNamingTheLimit() {
        assertDeploymentFails("too-many-workers", "projection.workers must be at most 256", "was 1000");
    }

    @Test
    void validateModeFailsTheDeploymentNamingWhatIsMissingAndPrintingTheDdl() throws Exception {
        deployer.deploy("valid"); // an update-mode deployment first: the schema exists
        deployer.undeploy("valid");
        execute("DROP INDEX projection_pending_due_idx");
        try {
            assertDeploymentFails("validate-schema", "the database lacks index projection_pending_due_idx",
                    "CREATE INDEX projection_pending_due_idx");
        } finally {
            execute("CREATE INDEX projection_pending_due_idx ON projection_pending (projection, available_at, tenant_id, entity_id)");
        }
    }

    @Test
    void aProjectionDefinedInAWarFailsTheDeploymentSayingWhereToMoveIt() {
        assertDeploymentFails("projection-in-a-war", "projection bean dev.projections.it.deployment.ProjectionInAWar is "
                + "defined in a WAR", "Move it to an ejb-jar of the EAR or to a jar in the EAR's lib/");
    }

    @Test
    void aKeyPathNamingNoAttributeFailsTheDeploymentNamingEntityAndPath() {
        assertDeploymentFails("bad-key-path", "on entity dev.projections.it.deployment.BadPathEntity has an invalid key path", "nope");
    }

    @Test
    void twoProjectedUnitsOnDifferentDatasourcesWithoutTheSettingFailTheDeploymentNamingEachUnitAndItsJndiName()
            throws Exception {
        withOtherDatasource(() -> assertDeploymentFails("unit-on-another-database",
                "the persistence units with @Projected entities write to different datasources",
                "demo to java:jboss/datasources/ProjectionDS", "elsewhere to " + OTHER_DATASOURCE,
                "projection.datasource is not set"));
    }

    @Test
    void aProjectedUnitOnAnotherDatabaseThanTheSettingFailsTheDeploymentNamingUnitItsJndiNameAndTheSetting()
            throws Exception {
        withOtherDatasource(() -> assertDeploymentFails("unit-on-another-database-than-the-setting",
                "persistence unit elsewhere has @Projected entities but writes to " + OTHER_DATASOURCE
                        + " (jdbc:h2:mem:elsewhere", "projection.datasource is java:jboss/datasources/ProjectionDS",
                "both must be one database", "or set projection.datasource to " + OTHER_DATASOURCE));
    }

    /** OtherDS, an H2 database in memory, while {@code test} runs. */
    private static void withOtherDatasource(ThrowingRunnable test) throws Exception {
        ModelNode address = Operations.createAddress("subsystem", "datasources", "data-source", "OtherDS");
        ModelNode add = Operations.createAddOperation(address);
        add.get("jndi-name").set(OTHER_DATASOURCE);
        add.get("driver-name").set("h2");
        add.get("connection-url").set("jdbc:h2:mem:elsewhere;DB_CLOSE_DELAY=-1");
        add.get("user-name").set("sa");
        add.get("password").set("sa");
        Management.execute(add);
        try {
            test.run();
        } finally {
            Management.execute(Operations.createRemoveOperation(address));
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private void assertDeploymentFails(String deployment, String... messageParts) {
        try {
            var failure = assertThatThrownBy(() -> deployer.deploy(deployment));
            for (String part : messageParts) {
                failure.hasStackTraceContaining(part);
            }
        } finally {
            try {
                deployer.undeploy(deployment);
            } catch (RuntimeException alreadyGone) {
                // a failed deployment is usually rolled back by the server already
            }
        }
    }
}
