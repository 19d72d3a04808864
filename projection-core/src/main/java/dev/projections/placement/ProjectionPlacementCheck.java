package dev.projections.placement;

import dev.projections.Projection;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessBean;
import java.net.URL;
import java.security.CodeSource;

/**
 * Reports a {@link Projection} bean the engine cannot see at deployment (docs/contract.md §13): one defined in a WAR of
 * an EAR whose engine lives elsewhere (an ejb-jar does not see a WAR's beans), which would silently never be
 * refreshed. A projection in the same WAR as the engine — a single-WAR application with the library in
 * {@code WEB-INF/lib} — is seen and allowed.
 */
public final class ProjectionPlacementCheck implements Extension {

    void checkPlacement(@Observes ProcessBean<?> event) {
        if (!(event.getBean().getBeanClass() != null && Projection.class.isAssignableFrom(event.getBean().getBeanClass()))) {
            return;
        }
        Class<?> beanClass = event.getBean().getBeanClass();
        String location = locationOf(beanClass);
        if (!engineSees(location, locationOf(ProjectionPlacementCheck.class))) {
            event.addDefinitionError(new DeploymentException("projection bean " + beanClass.getName()
                    + " is defined in a WAR (" + location + "): the engine, outside that WAR, cannot see a WAR's beans."
                    + " Move it to an ejb-jar of the EAR or to a jar in the EAR's lib/, or put the library in that"
                    + " WAR's WEB-INF/lib."));
        }
    }

    /** False only for a class inside a WAR that the engine (at {@code engineLocation}) is not inside too. */
    static boolean engineSees(String location, String engineLocation) {
        String war = warOf(location);
        return war == null || war.equals(warOf(engineLocation));
    }

    /** The part of a code location up to and including its WAR ({@code …/shop.war}), or null outside a WAR. */
    static String warOf(String location) {
        if (location == null) {
            return null;
        }
        for (int at = location.indexOf(".war"); at >= 0; at = location.indexOf(".war", at + 1)) {
            int end = at + ".war".length();
            if (end == location.length() || location.charAt(end) == '/' || location.charAt(end) == '!') {
                return location.substring(0, end);
            }
        }
        return null;
    }

    private static String locationOf(Class<?> type) {
        CodeSource source = type.getProtectionDomain() == null ? null : type.getProtectionDomain().getCodeSource();
        URL url = source == null ? null : source.getLocation();
        return url == null ? null : url.toString();
    }
}
