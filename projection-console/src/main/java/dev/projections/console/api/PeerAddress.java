package dev.projections.console.api;

import jakarta.servlet.http.HttpServletRequest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The address of the connection a request came on. On WildFly, Undertow's own: {@code getRemoteAddr()} answers what
 * any client's {@code X-Forwarded-For} says once the listener's {@code proxy-address-forwarding} is on, so a login
 * throttle that believed it would count whatever address a client chose. Elsewhere (Payara), {@code getRemoteAddr()}.
 */
final class PeerAddress {

    private static final boolean UNDERTOW = present("io.undertow.servlet.handlers.ServletRequestContext");

    private PeerAddress() {
    }

    static String of(HttpServletRequest request) {
        if (UNDERTOW) {
            String peer = Undertow.peer();
            if (peer != null) {
                return peer;
            }
        }
        return request.getRemoteAddr();
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, PeerAddress.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Loaded only where Undertow's servlet classes are. */
    private static final class Undertow {
        static String peer() {
            io.undertow.servlet.handlers.ServletRequestContext current =
                    io.undertow.servlet.handlers.ServletRequestContext.current();
            if (current == null) {
                return null;
            }
            io.undertow.server.HttpServerExchange exchange = current.getExchange();
            SocketAddress peer = dev.projections.console.LoginThrottling.isAjp(exchange) ? exchange.getSourceAddress()
                    : exchange.getConnection().getPeerAddress(); // AJP: the client's, from attributes no client sets
            return peer instanceof InetSocketAddress inet && inet.getAddress() != null
                    ? inet.getAddress().getHostAddress() : null;
        }
    }
}
