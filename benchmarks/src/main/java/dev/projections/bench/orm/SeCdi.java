package dev.projections.bench.orm;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.enterprise.util.TypeLiteral;
import java.lang.annotation.Annotation;
import java.util.Iterator;
import java.util.List;
import jakarta.enterprise.inject.UnsatisfiedResolutionException;
import java.util.Collections;

/**
 * Just enough of CDI for the marking integration in Java SE: it looks its {@link dev.projections.marking.MarkSink} up
 * with {@code CDI.current().select(MarkSink.class)}, because Hibernate, not CDI, creates its listeners. This
 * "container" knows one bean, given at {@link #install}; every other lookup is unsatisfied.
 */
public final class SeCdi extends CDI<Object> {

    private final Object bean;
    private final Class<?> beanType;

    private SeCdi(Class<?> beanType, Object bean) {
        this.beanType = beanType;
        this.bean = bean;
    }

    /** Makes {@code CDI.current()} answer {@code bean} for {@code type}, for the rest of the JVM's life. */
    public static synchronized <T> void install(Class<T> type, T bean) {
        SeCdi cdi = new SeCdi(type, bean);
        CDI.setCDIProvider(() -> cdi);
    }

    @Override
    public BeanManager getBeanManager() {
        throw new UnsupportedOperationException("no bean manager in the benchmark's CDI stand-in");
    }

    @Override
    public <U> Instance<U> select(Class<U> subtype, Annotation... qualifiers) {
        return subtype == beanType && qualifiers.length == 0 ? new Single<>(subtype.cast(bean)) : new Single<>(null);
    }

    @Override
    public Instance<Object> select(Annotation... qualifiers) {
        return new Single<>(null);
    }

    @Override
    public <U> Instance<U> select(TypeLiteral<U> subtype, Annotation... qualifiers) {
        return new Single<>(null);
    }

    @Override
    public boolean isUnsatisfied() {
        return true;
    }

    @Override
    public boolean isAmbiguous() {
        return false;
    }

    @Override
    public void destroy(Object instance) {
    }

    @Override
    public Handle<Object> getHandle() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Iterable<? extends Handle<Object>> handles() {
        return List.of();
    }

    @Override
    public Iterator<Object> iterator() {
        return List.of().iterator();
    }

    @Override
    public Object get() {
        throw new UnsatisfiedResolutionException("the benchmark's CDI has no such bean");
    }

    /** An instance with one bean, or none when {@code bean} is {@code null}. */
    private record Single<T>(T bean) implements Instance<T> {
        @Override
        public T get() {
            if (bean == null) {
                throw new UnsatisfiedResolutionException("the benchmark's CDI has no such bean");
            }
            return bean;
        }

        @Override
        public Instance<T> select(Annotation... qualifiers) {
            return this;
        }

        @Override
        public <U extends T> Instance<U> select(Class<U> subtype, Annotation... qualifiers) {
            return new Single<>(subtype.isInstance(bean) ? subtype.cast(bean) : null);
        }

        @Override
        public <U extends T> Instance<U> select(TypeLiteral<U> subtype, Annotation... qualifiers) {
            return new Single<>(null);
        }

        @Override
        public boolean isUnsatisfied() {
            return bean == null;
        }

        @Override
        public boolean isAmbiguous() {
            return false;
        }

        @Override
        public void destroy(T instance) {
        }

        @Override
        public Handle<T> getHandle() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Iterable<? extends Handle<T>> handles() {
            return List.of();
        }

        @Override
        public Iterator<T> iterator() {
            return bean == null ? Collections.emptyIterator() : List.of(bean).iterator();
        }
    }
}
