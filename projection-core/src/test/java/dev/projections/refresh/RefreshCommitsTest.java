package dev.projections.refresh;

import static dev.projections.refresh.NamedProjection.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.config.InvalidSettingsException;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.SettingSource;
import dev.projections.config.Settings;
import dev.projections.store.Dialect;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * {@code synchronous-commit} is PostgreSQL's: set where the database has no such setting for one transaction, it fails
 * the deployment naming each key that set it (docs/design.md D63). The commits it tells are the engine tests' part
 * ({@code PostgresOneTransactionRefreshTest}).
 */
class RefreshCommitsTest {

    private static Settings settings(Map<String, String> values) {
        Properties deployment = new Properties();
        deployment.putAll(values);
        SettingSource source = SettingSource.standard(new Properties(), Map.of(), deployment);
        return ProjectionSettings.resolve(Settings.load(source), source, List.of(named("orders"), named("customers")));
    }

    @Test
    void setOnADatabaseWithoutItTheDeploymentFailsNamingEachKeyThatSetIt() {
        Settings both = settings(Map.of("projection.synchronous-commit", "off",
                "projection.customers.synchronous-commit", "local"));
        for (Dialect dialect : List.of(Dialect.MARIADB, Dialect.H2)) {
            assertThatThrownBy(() -> new RefreshCommits(both, dialect))
                    .isInstanceOf(InvalidSettingsException.class)
                    .satisfies(e -> assertThat(((InvalidSettingsException) e).problems()).satisfiesExactly(
                            global -> assertThat(global).startsWith("projection.synchronous-commit=off: ")
                                    .contains("the database is " + dialect),
                            own -> assertThat(own).startsWith("projection.customers.synchronous-commit=local (")
                                    .contains("leave it unset there")));
        }
    }

    @Test
    void unsetOnAnyDatabaseAndSetOnPostgresTheEngineIsBuilt() {
        for (Dialect dialect : Dialect.values()) {
            new RefreshCommits(settings(Map.of()), dialect);
        }
        new RefreshCommits(settings(Map.of("projection.synchronous-commit", "off")), Dialect.POSTGRESQL);
    }
}
