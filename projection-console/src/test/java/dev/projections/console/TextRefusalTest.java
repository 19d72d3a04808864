package dev.projections.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.ee.admin.ActionRefused;
import dev.projections.ops.DatabaseFailure;
import dev.projections.ops.UnknownProjection;
import java.sql.SQLException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What an operator reads of a refused console action: the engine's refusal as it says it, and the database failing an
 * action as the console's sentence naming what could not be done, its text kept for the log (as the API keeps it).
 */
class TextRefusalTest {

    @Test
    void theDatabaseFailingAnActionNamesWhatCouldNotBeDoneAndKeepsTheDatabasesTextOutOfThePage() {
        DatabaseFailure failure = new DatabaseFailure("retry failing marks of orders",
                new SQLException("ERROR: relation \"projection_pending\" does not exist", "42P01"));

        String shown = Text.refusal(new ActionRefused(failure.getMessage(), failure));

        assertThat(shown).isEqualTo("The database could not retry failing marks of orders; nothing was done, and the "
                + "server's log has the cause.");
    }

    @Test
    void aRefusalOfTheEngineIsShownAsItSaysIt() {
        UnknownProjection unknown = new UnknownProjection("ordrs", Set.of("orders"));

        assertThat(Text.refusal(new ActionRefused(unknown.getMessage(), unknown))).isEqualTo(unknown.getMessage());
        assertThat(Text.refusal(new IllegalStateException("a rebuild of orders is running")))
                .isEqualTo("a rebuild of orders is running");
    }
}
