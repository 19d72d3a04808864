package dev.projections.eclipselink;

import org.hibernate.type.descriptor.WrapperOptions;
import org.hibernate.type.descriptor.java.JavaType;
import org.hibernate.type.format.FormatMapper;

/**
 * Hibernate's JSON mapper for a test classpath that has the Jakarta JSON-B API (the EE API jar) and no implementation:
 * Hibernate would pick JSON-B and fail to start. No entity of these tests maps JSON.
 */
public final class NoJsonFormatMapper implements FormatMapper {

    @Override
    public <T> T fromString(CharSequence charSequence, JavaType<T> javaType, WrapperOptions wrapperOptions) {
        throw new UnsupportedOperationException("no JSON in these tests");
    }

    @Override
    public <T> String toString(T value, JavaType<T> javaType, WrapperOptions wrapperOptions) {
        throw new UnsupportedOperationException("no JSON in these tests");
    }
}
