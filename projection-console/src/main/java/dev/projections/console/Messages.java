package dev.projections.console;

import jakarta.ejb.EJBAccessException;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import java.util.function.Function;
import java.util.function.Supplier;

/** Runs a console action and tells the operator how it went: what it did, or why it was refused. */
final class Messages {

    private Messages() {
    }

    static void run(Runnable action, String done) {
        run(() -> {
            action.run();
            return null;
        }, ignored -> done);
    }

    static <T> void run(Supplier<T> action, Function<T, String> done) {
        try {
            info(done.apply(action.get()));
        } catch (EJBAccessException denied) {
            error(Text.of("action.not-allowed"));
        } catch (RuntimeException refused) {
            error(refused.getMessage() == null ? refused.toString() : refused.getMessage());
        }
    }

    static void info(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, text, null));
    }

    static void error(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, text, null));
    }
}
