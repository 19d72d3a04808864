package dev.projections.freshness;

/** Whether {@code projection.test-support} is on: the HTTP test endpoints answer only then (a bean of the EE layer). */
public interface TestSupportSwitch {

    boolean testSupportEnabled();
}
