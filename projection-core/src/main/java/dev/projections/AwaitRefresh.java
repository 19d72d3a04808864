package dev.projections;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a method of a CDI bean (or every method of a bean class): the call returns only once the marks its transaction
 * committed are refreshed, or {@link #value()} passed (docs/contract.md §14). The wait runs after the method's
 * commit, so the method must commit before it returns: a {@code @Transactional} method (this interceptor runs outside
 * that one), or a JAX-RS resource or CDI bean that calls an EJB. On an EJB's own method the container's transaction
 * is still open when this interceptor's call returns: it does not wait, and says so once in the log.
 */
@Inherited
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface AwaitRefresh {

    /** The longest wait, as {@code 500ms}, {@code 2s} or {@code 1m}; capped by {@code projection.await-max-timeout}. */
    @Nonbinding
    String value() default "2s";
}
