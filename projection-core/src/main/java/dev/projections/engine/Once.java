package dev.projections.engine;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A value looked up at its first use and kept: a container's beans that must not be created while the engine is
 * built (that may run on a committing thread, under the application's identity), nor looked up through a proxy at
 * every refresh. Two first uses at once may both look up; either result is kept.
 */
public final class Once<T> implements Supplier<T> {

    private final Supplier<T> lookup;
    private volatile T value;

    private Once(Supplier<T> lookup) {
        this.lookup = Objects.requireNonNull(lookup, "lookup");
    }

    public static <T> Once<T> of(Supplier<T> lookup) {
        return new Once<>(lookup);
    }

    @Override
    public T get() {
        T found = value;
        if (found == null) {
            found = Objects.requireNonNull(lookup.get(), "looked up");
            value = found;
        }
        return found;
    }
}
