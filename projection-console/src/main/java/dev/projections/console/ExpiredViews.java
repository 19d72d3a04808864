package dev.projections.console;

import jakarta.faces.application.ViewExpiredException;
import jakarta.faces.context.ExceptionHandler;
import jakarta.faces.context.ExceptionHandlerFactory;
import jakarta.faces.context.ExceptionHandlerWrapper;
import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import jakarta.faces.event.ExceptionQueuedEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * An expired view (the session ended, or a form carries a view state this session was never given) is a normal
 * condition, not a server error: the page that says so is answered with 200, in place of the request, instead of
 * the container's error page with 500. Nothing of the form was applied: Faces fails in its first phase.
 */
public final class ExpiredViews extends ExceptionHandlerFactory {

    /**
     * Where the console's pages are: {@code /} in the console WAR, {@code /projections/} in an application's WAR
     * (each sets it as a context parameter); only expired views of the console are answered here.
     */
    static final String CONSOLE_PATH = "dev.projections.console.PATH";

    public ExpiredViews(ExceptionHandlerFactory wrapped) {
        super(wrapped);
    }

    @Override
    public ExceptionHandler getExceptionHandler() {
        return new Handler(getWrapped().getExceptionHandler());
    }

    private static final class Handler extends ExceptionHandlerWrapper {

        Handler(ExceptionHandler wrapped) {
            super(wrapped);
        }

        @Override
        public void handle() {
            Iterator<ExceptionQueuedEvent> events = getUnhandledExceptionQueuedEvents().iterator();
            while (events.hasNext()) {
                if (expired(events.next().getContext().getException()) && ofTheConsole(FacesContext.getCurrentInstance())) {
                    events.remove();
                    answerWithThePage(FacesContext.getCurrentInstance());
                }
            }
            getWrapped().handle();
        }

        private static boolean expired(Throwable thrown) {
            for (Throwable t = thrown; t != null; t = t.getCause()) {
                if (t instanceof ViewExpiredException) {
                    return true;
                }
            }
            return false;
        }

        /** An application's own expired views, in a WAR that carries the console, are the application's matter. */
        private static boolean ofTheConsole(FacesContext faces) {
            String servletPath = faces.getExternalContext().getRequestServletPath();
            return servletPath != null && servletPath.startsWith(consolePath(faces.getExternalContext()));
        }

        private static String consolePath(ExternalContext external) {
            String path = external.getInitParameter(CONSOLE_PATH);
            return path == null || path.isBlank() ? "/" : path;
        }

        private static void answerWithThePage(FacesContext faces) {
            if (faces.getResponseComplete()) {
                return;
            }
            ExternalContext external = faces.getExternalContext();
            try (InputStream page = external.getResourceAsStream(consolePath(external) + "expired.html")) {
                external.responseReset();
                external.setResponseStatus(200);
                external.setResponseContentType("text/html");
                external.setResponseCharacterEncoding("UTF-8");
                external.getResponseOutputWriter().write(new String(page.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            faces.responseComplete();
        }
    }
}
