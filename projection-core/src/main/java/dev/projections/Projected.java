package dev.projections;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a projection dirty whenever an entity of this type is inserted, updated or deleted.
 * <pre>
 * &#64;Entity &#64;Projected("order-search") &#64;Projected(value = "customer-stats", id = "customer")
 * class Order { &#64;ManyToOne Customer customer; ... }
 * </pre>
 * {@link #id()} is a key path: empty for the entity's own id, the name of a basic attribute, or the name of
 * one {@code @ManyToOne} association (whose id is taken). When the key's value changes, both the old and
 * the new key are marked. Paths are checked when the persistence unit starts.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Repeatable(Projected.List.class)
public @interface Projected {

    /** The projection's name. */
    String value();

    /** Key path; empty means the entity's own id. */
    String id() default "";

    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface List {
        Projected[] value();
    }
}
