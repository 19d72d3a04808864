package dev.projections.console;

import dev.projections.engine.Foundation;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/**
 * Tells the console's login throttle where the reverse proxies to believe come from
 * ({@code projection.console.trusted-proxies}) as the console's web application starts, before it serves a request.
 * The settings are read at the first login, not here: reading them while the application's modules start could wait
 * for the very deployment that is starting (the projections' registry waits for the application's beans).
 */
@ApplicationScoped
public class LoginProxies {

    /* resolved at the first login: the engine's settings and datasource are chosen once the units have started */
    @Inject
    Instance<Foundation> foundation;

    void started(@Observes @Initialized(ApplicationScoped.class) Object context) {
        LoginThrottle.shared().trustFrom(() -> foundation.get().settings().trustedProxies());
    }
}
