package dev.projections.console;

import dev.projections.ee.admin.ActionRefused;
import dev.projections.ops.DatabaseFailure;
import jakarta.ejb.EJBAccessException;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import java.text.MessageFormat;
import java.util.Locale;
import java.util.ResourceBundle;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The console's texts for Java code (messages after an action, labels built from values), from the bundle the pages
 * read as {@code #{projectionsText[…]}}: one place for every sentence, in the language of the view
 * ({@link ConsoleLocale}); and the message an action leaves on the page, what it did or why it was refused.
 *
 * <p>Only the console's own sentences are here. A refusal of the engine or of {@code ConsoleAdmin}
 * ({@code IllegalArgumentException} naming a bad value, {@code IllegalStateException} naming a running run) is shown as
 * its message says, in English: it is the API's error, the same in a log, in a caller's code and in the console, and
 * the audit details {@code ConsoleAdmin} writes are data, kept in the words they were written in. The database failing
 * an action is the console's sentence naming what could not be done; the database's text goes to the log.
 */
public final class Text {

    static final String BUNDLE = "dev.projections.console.text";

    private static final Logger LOG = Logger.getLogger(Text.class.getName());

    /**
     * The language asked for and its parents only: the default lookup would fall back to the server JVM's language
     * before {@code text.properties}, so an English page on a German server would get German sentences.
     */
    private static final ResourceBundle.Control NO_FALLBACK =
            ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES);

    private Text() {
    }

    /** The text under {@code key}, with {@code arguments} put in its {@code {0}}, {@code {1}}… */
    public static String of(String key, Object... arguments) {
        return of(locale(), key, arguments);
    }

    static String of(Locale locale, String key, Object... arguments) {
        String pattern = bundle(locale).getString(key);
        return arguments.length == 0 ? pattern : new MessageFormat(pattern, locale).format(arguments);
    }

    /** Whether the console has its texts in {@code language} ({@code text_en.properties} says so for English). */
    static boolean speaks(String language) {
        return !language.isEmpty() && bundle(new Locale(language)).getLocale().getLanguage().equals(language);
    }

    /** Runs a console action and tells the operator how it went: {@code done}, or why it was refused. */
    static void act(Runnable action, String done) {
        act(() -> {
            action.run();
            return null;
        }, ignored -> done);
    }

    /** The same for an action with a result, which {@code done} puts in words. */
    static <T> void act(Supplier<T> action, Function<T, String> done) {
        try {
            info(done.apply(action.get()));
        } catch (EJBAccessException denied) {
            error(of("action.not-allowed"));
        } catch (RuntimeException refused) {
            error(refusal(refused));
        }
    }

    /**
     * What the operator reads of an action that threw {@code refused}: the refusal's own message, or, when the
     * database failed the action, the console's sentence naming what could not be done — the database's text may
     * quote SQL and driver internals, so it goes to the log, as the management API's does.
     */
    static String refusal(RuntimeException refused) {
        if (refused instanceof ActionRefused && refused.getCause() instanceof DatabaseFailure failure) {
            LOG.log(Level.WARNING, "PRJ504: console action failed in the database", failure);
            return Text.of("action.database-failed", failure.what()); // qualified: TextBundleTest finds it so
        }
        return refused.getMessage() == null ? refused.toString() : refused.getMessage();
    }

    static void info(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, text, null));
    }

    static void error(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, text, null));
    }

    /** The view's language, also for numbers; English outside a page. */
    static Locale locale() {
        FacesContext faces;
        try {
            faces = FacesContext.getCurrentInstance();
        } catch (LinkageError noFacesImplementation) {
            // off a request thread Faces asks its implementation (Mojarra), which only the server has: a unit test
            return Locale.ENGLISH;
        }
        return faces == null || faces.getViewRoot() == null ? Locale.ENGLISH : faces.getViewRoot().getLocale();
    }

    private static ResourceBundle bundle(Locale locale) {
        return ResourceBundle.getBundle(BUNDLE, locale, NO_FALLBACK);
    }
}
