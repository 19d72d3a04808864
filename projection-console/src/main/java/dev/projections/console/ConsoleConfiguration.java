package dev.projections.console;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.faces.annotation.FacesConfig;

/** Activates Jakarta Faces' CDI integration for the console. */
@FacesConfig
@ApplicationScoped
public class ConsoleConfiguration {
}
