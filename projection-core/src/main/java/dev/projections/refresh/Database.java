package dev.projections.refresh;

import java.util.concurrent.Callable;

/** Turns a checked failure of engine work on the database into a {@link DatabaseTroubleException}. */
public final class Database {

    private Database() {
    }

    public static <T> T call(String what, Callable<T> work) {
        try {
            return work.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new DatabaseTroubleException(what + " failed: " + FailureText.of(e), e);
        }
    }
}
