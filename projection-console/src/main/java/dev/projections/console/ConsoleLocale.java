package dev.projections.console;

import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Named;
import java.util.Iterator;
import java.util.Locale;

/**
 * The language of a console page, set by its template ({@code <f:view locale>}, and {@code <html lang>} from it): the
 * first language the browser asks for that the console has texts in, else English.
 *
 * <p>Not a {@code <locale-config>} in the console's faces-config.xml: that is the whole application's setting, and in
 * an application's WAR (the console as a web fragment) it would set the language of the application's own pages too,
 * or be overridden by theirs. Without either, Faces takes the server JVM's default locale for every view: a page
 * declaring English would group digits the German way on a German server.
 */
@Named("projectionsLocale")
@RequestScoped
public class ConsoleLocale {

    private Locale current;

    public Locale getCurrent() {
        if (current == null) {
            current = choose(FacesContext.getCurrentInstance().getExternalContext().getRequestLocales());
        }
        return current;
    }

    static Locale choose(Iterator<Locale> asked) {
        while (asked.hasNext()) {
            String language = asked.next().getLanguage();
            if (Text.speaks(language)) {
                return new Locale(language);
            }
        }
        return Locale.ENGLISH;
    }
}
