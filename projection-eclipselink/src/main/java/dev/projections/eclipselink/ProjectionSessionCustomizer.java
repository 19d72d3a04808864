package dev.projections.eclipselink;

import org.eclipse.persistence.config.SessionCustomizer;
import org.eclipse.persistence.descriptors.ClassDescriptor;
import org.eclipse.persistence.sessions.Session;

/**
 * Hooks automatic marking into a persistence unit on EclipseLink, as projection-hibernate's {@code ProjectionIntegrator}
 * does on Hibernate. A unit names it:
 * <pre>
 * &lt;property name="eclipselink.session.customizer" value="dev.projections.eclipselink.ProjectionSessionCustomizer"/&gt;
 * </pre>
 * A unit with a customizer of its own calls this one's {@link #customize} from it. Key paths are checked here, so a bad
 * one fails the persistence unit, naming entity and path.
 */
public final class ProjectionSessionCustomizer implements SessionCustomizer {

    /** The persistence unit property that names a session customizer. */
    public static final String PROPERTY = "eclipselink.session.customizer";

    @Override
    public void customize(Session session) {
        ProjectedDescriptors index = ProjectedDescriptors.of(session);
        if (index.isEmpty()) {
            return;
        }
        MarkingEvents events = new MarkingEvents(index);
        for (ClassDescriptor descriptor : index.descriptors()) {
            descriptor.getEventManager().addListener(events);
        }
        session.getEventManager().addListener(new CommitMarks());
        session.getEventManager().addListener(new UnitRegistration());
    }
}
