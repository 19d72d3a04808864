package dev.projections.placement;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProjectionPlacementCheckTest {

    private static final String EAR_LIB = "vfs:/content/shop.ear/lib/projection-core.jar";

    @Test
    void aProjectionInAWarOfAnEarWhoseEngineIsInLibIsRefused() {
        assertThat(ProjectionPlacementCheck.engineSees("vfs:/content/shop.ear/web.war/WEB-INF/classes/", EAR_LIB))
                .isFalse();
    }

    @Test
    void aProjectionInTheSameWarAsTheEngineIsSeen() {
        assertThat(ProjectionPlacementCheck.engineSees("vfs:/content/shop.war/WEB-INF/classes/",
                "vfs:/content/shop.war/WEB-INF/lib/projection-core.jar")).isTrue();
    }

    @Test
    void aProjectionInAnotherWarThanTheEnginesIsRefused() {
        assertThat(ProjectionPlacementCheck.engineSees("vfs:/content/shop.ear/admin.war/WEB-INF/classes/",
                "vfs:/content/shop.ear/web.war/WEB-INF/lib/projection-core.jar")).isFalse();
    }

    @Test
    void projectionsInEjbJarsOrLibAreSeenAndAWarLikeNameIsNoWar() {
        assertThat(ProjectionPlacementCheck.engineSees("vfs:/content/shop.ear/orders.jar", EAR_LIB)).isTrue();
        assertThat(ProjectionPlacementCheck.engineSees("vfs:/content/shop.ear/lib/software.warehouse.jar", EAR_LIB))
                .isTrue();
        assertThat(ProjectionPlacementCheck.engineSees(null, EAR_LIB)).isTrue();
    }
}
