package dev.projections.refresh;

import dev.projections.config.InvalidSettingsException;
import dev.projections.config.ProjectionSettings;
import dev.projections.config.Settings;
import dev.projections.store.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a transaction that refreshes read models and ends their marks commits (docs/design.md D63): with the
 * {@code synchronous-commit} its projections set, or as the database says where they set none. A refresh and its
 * mark's end commit together, so a database crash that loses the commit loses both: the mark is back, and its key is
 * refreshed again. Nothing is lost; the read model is briefly older than a read before the crash saw.
 */
public final class RefreshCommits {

    private final Settings settings;
    private final Dialect dialect;

    /**
     * @throws InvalidSettingsException as {@link #requireSupported}
     */
    RefreshCommits(Settings settings, Dialect dialect) {
        requireSupported(settings, dialect);
        this.settings = settings;
        this.dialect = dialect;
    }

    /**
     * Fails a deployment that sets {@code synchronous-commit} where the database has no such setting for one
     * transaction (MariaDB, H2): before the engine is built, as the container builds it lazily.
     *
     * @throws InvalidSettingsException naming each key that set it, and the database
     */
    public static void requireSupported(Settings settings, Dialect dialect) {
        if (dialect.commitsAsTold()) {
            return;
        }
        String unsupported = "PostgreSQL's synchronous_commit for the refresh transactions; the database is " + dialect
                + ", which has none for one transaction: leave it unset there";
        List<String> problems = new ArrayList<>();
        if (settings.synchronousCommit() != null) {
            problems.add(Settings.SYNCHRONOUS_COMMIT + "=" + settings.synchronousCommit() + ": " + unsupported);
        }
        settings.projections().forEach((projection, its) -> {
            String origin = its.origins().get(ProjectionSettings.SYNCHRONOUS_COMMIT);
            if (its.synchronousCommit() != null && origin != null && !origin.endsWith("(global)")) {
                problems.add(ProjectionSettings.key(projection, ProjectionSettings.SYNCHRONOUS_COMMIT) + "="
                        + its.synchronousCommit() + " (" + origin + "): " + unsupported);
            }
        });
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
    }

    /**
     * How a transaction that refreshes marks of {@code projections} commits: the {@code synchronous-commit} they set,
     * when they all set the same; else {@code null}, as the database says.
     */
    String of(List<String> projections) {
        String synchronousCommit = null;
        for (String projection : projections) {
            String its = settings.of(projection).synchronousCommit();
            if (its == null || (synchronousCommit != null && !synchronousCommit.equals(its))) {
                return null;
            }
            synchronousCommit = its;
        }
        return synchronousCommit;
    }

    /**
     * Tells the transaction on {@code connection}, which refreshes marks of {@code projection}, how to commit; no
     * statement where the projection sets nothing.
     */
    void tell(Connection connection, String projection) throws SQLException {
        String synchronousCommit = settings.of(Objects.requireNonNull(projection)).synchronousCommit();
        if (synchronousCommit != null) {
            dialect.commitTransaction(connection, synchronousCommit);
        }
    }
}
