package dev.projections.console;

import io.undertow.security.api.SecurityContext;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.servlet.ServletExtension;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import jakarta.servlet.ServletContext;
import java.net.InetSocketAddress;

/**
 * The console's form login throttled per client address ({@link LoginThrottle}), on WildFly: a POST to the console's
 * {@code j_security_check} is checked by the server's form mechanism before any filter or servlet of the application
 * runs, so this is an Undertow handler placed ahead of the server's security. While the address must wait, the POST is
 * answered {@code 429} with {@code Retry-After} and never reaches the realm; otherwise the outcome is counted once the
 * exchange completes — authenticated or not. Only the console's own login path is touched (its {@code PATH} context
 * parameter: the console WAR's root, or {@code /projections/} of an application's WAR); an application's other form
 * logins are left alone. Found by Undertow through {@code META-INF/services}; Payara, which has no Undertow, ignores it.
 */
public class LoginThrottling implements ServletExtension {

    static final String PATH_PARAMETER = "dev.projections.console.PATH";

    @Override
    public void handleDeployment(DeploymentInfo deployment, ServletContext servletContext) {
        String consolePath = deployment.getInitParameters().get(PATH_PARAMETER);
        if (consolePath == null) {
            consolePath = servletContext.getInitParameter(PATH_PARAMETER);
        }
        if (consolePath == null) {
            return;
        }
        String loginPath = consolePath + "j_security_check";
        deployment.addInitialHandlerChainWrapper(next -> new Throttled(next, loginPath, LoginThrottle.shared()));
    }

    /** The handler ahead of the server's security. */
    static final class Throttled implements HttpHandler {

        private final HttpHandler next;
        private final String loginPath;
        private final LoginThrottle throttle;

        Throttled(HttpHandler next, String loginPath, LoginThrottle throttle) {
            this.next = next;
            this.loginPath = loginPath;
            this.throttle = throttle;
        }

        @Override
        public void handleRequest(HttpServerExchange exchange) throws Exception {
            if (!exchange.getRequestMethod().equals(Methods.POST) || !exchange.getRelativePath().equals(loginPath)) {
                next.handleRequest(exchange);
                return;
            }
            InetSocketAddress source = exchange.getSourceAddress();
            String address = source == null || source.getAddress() == null ? "unknown"
                    : source.getAddress().getHostAddress();
            LoginThrottle.Throttled wait;
            try {
                throttle.check(address);
                wait = null;
            } catch (LoginThrottle.Throttled refused) {
                wait = refused;
            }
            if (wait != null) {
                exchange.setStatusCode(429);
                exchange.getResponseHeaders().put(Headers.RETRY_AFTER, String.valueOf(wait.retryAfterSeconds()));
                exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/plain; charset=UTF-8");
                exchange.getResponseHeaders().put(Headers.CACHE_CONTROL, "no-store");
                exchange.getResponseSender().send(wait.getMessage() + "\n");
                return;
            }
            exchange.addExchangeCompleteListener((completed, nextListener) -> {
                SecurityContext security = completed.getSecurityContext();
                if (security != null && security.isAuthenticated()) {
                    throttle.succeeded(address);
                } else {
                    throttle.failed(address);
                }
                nextListener.proceed();
            });
            next.handleRequest(exchange);
        }
    }
}
