package dev.projections.console;

import io.undertow.security.api.SecurityContext;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.servlet.ServletExtension;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.util.HeaderValues;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import jakarta.servlet.ServletContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

/**
 * The form login throttled per client address ({@link LoginThrottle}), on WildFly: a POST to {@code j_security_check}
 * is checked by the server's form mechanism before any filter or servlet of the application runs, so this is an
 * Undertow handler placed ahead of the server's security. While the address must wait, the POST is answered
 * {@code 429} with {@code Retry-After} and never reaches the realm; otherwise it counts as a failure until the
 * exchange completes authenticated. The address counted is the connection's, or through a trusted reverse proxy the
 * client it forwards ({@link LoginThrottle#clientKey}). Every form login of the web application the console is in is throttled (any POST
 * whose path names {@code j_security_check}), and nothing else. Found by Undertow through {@code META-INF/services},
 * and only active where the console's {@code PATH} context parameter is set; Payara, which has no Undertow, ignores
 * it.
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
        deployment.addInitialHandlerChainWrapper(next -> new Throttled(next, LoginThrottle.shared()));
    }

    /**
     * Whether a POST to {@code path} may be a form login: any path naming {@code j_security_check} — wider than the
     * mechanism's own match (its last segment), so that no spelling of the path walks around the throttle.
     */
    static boolean isLogin(String path) {
        return path != null && path.contains("j_security_check");
    }

    /**
     * The address of the connection itself: not {@code getSourceAddress()}, which the listener's
     * {@code proxy-address-forwarding} replaces with what any client's {@code X-Forwarded-For} says.
     */
    static String peer(HttpServerExchange exchange) {
        // on an AJP listener the connection is the web server's; its AJP attributes (which no client can set) carry
        // the client's address, and Undertow made it the source address
        SocketAddress peer = isAjp(exchange) ? exchange.getSourceAddress() : exchange.getConnection().getPeerAddress();
        return peer instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : null;
    }

    /** Whether the exchange came over AJP (from a web server in front, not from the client). */
    public static boolean isAjp(HttpServerExchange exchange) {
        return exchange.getConnection().getClass().getSimpleName().startsWith("Ajp");
    }

    static List<String> forwardedFor(HttpServerExchange exchange) {
        HeaderValues values = exchange.getRequestHeaders().get(Headers.X_FORWARDED_FOR);
        return values == null ? List.of() : List.copyOf(values);
    }

    /** The handler ahead of the server's security. */
    static final class Throttled implements HttpHandler {

        private final HttpHandler next;
        private final LoginThrottle throttle;

        Throttled(HttpHandler next, LoginThrottle throttle) {
            this.next = next;
            this.throttle = throttle;
        }

        @Override
        public void handleRequest(HttpServerExchange exchange) throws Exception {
            if (!exchange.getRequestMethod().equals(Methods.POST) || !isLogin(exchange.getRelativePath())) {
                next.handleRequest(exchange);
                return;
            }
            String address = throttle.clientKey(peer(exchange), forwardedFor(exchange));
            LoginThrottle.Throttled wait;
            try {
                throttle.attempt(address); // counted as failed until it succeeds
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
                }
                nextListener.proceed();
            });
            next.handleRequest(exchange);
        }
    }
}
