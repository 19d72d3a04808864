package dev.projections.console;

import jakarta.faces.context.FacesContext;
import java.text.MessageFormat;
import java.util.Locale;
import java.util.ResourceBundle;

/**
 * The console's texts for Java code (messages after an action, labels built from values), from the bundle the pages
 * read as {@code #{projectionsText[…]}}: one place for every sentence, in the language of the view.
 */
public final class Text {

    static final String BUNDLE = "dev.projections.console.text";

    private Text() {
    }

    /** The text under {@code key}, with {@code arguments} put in its {@code {0}}, {@code {1}}… */
    public static String of(String key, Object... arguments) {
        return of(locale(), key, arguments);
    }

    static String of(Locale locale, String key, Object... arguments) {
        String pattern = ResourceBundle.getBundle(BUNDLE, locale).getString(key);
        return arguments.length == 0 ? pattern : new MessageFormat(pattern, locale).format(arguments);
    }

    private static Locale locale() {
        try {
            FacesContext faces = FacesContext.getCurrentInstance();
            return faces == null || faces.getViewRoot() == null ? Locale.ENGLISH : faces.getViewRoot().getLocale();
        } catch (LinkageError noFacesImplementation) {
            // outside a server (the unit tests of the classes that format texts) there is no Faces runtime
            return Locale.ENGLISH;
        }
    }
}
