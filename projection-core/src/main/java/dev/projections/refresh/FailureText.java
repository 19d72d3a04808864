package dev.projections.refresh;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.ExecutionException;

/** The {@code last_error} of a failed refresh: exception class and message of the projection's own exception. */
final class FailureText {

    private FailureText() {
    }

    static String of(Throwable failure) {
        Throwable cause = failure;
        // container wrappers say nothing about why the projection failed
        while (cause.getCause() != null && isWrapper(cause)) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return cause.getClass().getName() + (message == null ? "" : ": " + message);
    }

    private static boolean isWrapper(Throwable t) {
        String name = t.getClass().getName();
        return name.equals("jakarta.ejb.EJBException") || name.equals("jakarta.ejb.EJBTransactionRolledbackException")
                || t instanceof InvocationTargetException
                || t instanceof UndeclaredThrowableException
                || t instanceof ExecutionException;
    }
}
