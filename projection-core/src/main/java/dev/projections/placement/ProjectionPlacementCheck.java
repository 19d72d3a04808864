package dev.projections.placement;

import dev.projections.Projection;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessBean;
import java.net.URL;
import java.security.CodeSource;

/**
 * Reports a {@link Projection} bean defined in a WAR at deployment (docs/contract.md §13): the engine lives in an ejb-jar, and
 * an ejb-jar does not see a WAR's beans, so such a projection would silently never be refreshed.
 */
public final class ProjectionPlacementCheck implements Extension {

    void checkPlacement(@Observes ProcessBean<?> event) {
        if (!(event.getBean().getBeanClass() != null && Projection.class.isAssignableFrom(event.getBean().getBeanClass()))) {
            return;
        }
        Class<?> beanClass = event.getBean().getBeanClass();
        String location = locationOf(beanClass);
        if (location != null && (location.contains(".war/") || location.contains(".war!"))) {
            event.addDefinitionError(new DeploymentException("projection bean " + beanClass.getName()
                    + " is defined in a WAR (" + location + "): the engine cannot see a WAR's beans. Move it to an "
                    + "ejb-jar of the EAR or to a jar in the EAR's lib/."));
        }
    }

    private static String locationOf(Class<?> type) {
        CodeSource source = type.getProtectionDomain() == null ? null : type.getProtectionDomain().getCodeSource();
        URL url = source == null ? null : source.getLocation();
        return url == null ? null : url.toString();
    }
}
