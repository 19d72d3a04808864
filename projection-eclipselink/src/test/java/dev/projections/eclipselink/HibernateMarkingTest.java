package dev.projections.eclipselink;

/** The marking contract on Hibernate ORM, through projection-hibernate's {@code ProjectionIntegrator}. */
class HibernateMarkingTest extends MarkingContract {

    @Override
    String unit() {
        return "marking-hibernate";
    }

    @Override
    String badKeyPathUnit() {
        return "bad-key-path-hibernate";
    }
}
