package dev.projections.eclipselink;

/** The marking contract on EclipseLink, through {@link ProjectionSessionCustomizer}. */
class EclipseLinkMarkingTest extends MarkingContract {

    @Override
    String unit() {
        return "marking-eclipselink";
    }

    @Override
    String badKeyPathUnit() {
        return "bad-key-path-eclipselink";
    }
}
