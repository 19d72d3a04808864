package dev.projections.console.api;

import dev.projections.console.LoginThrottle;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The caller of a management API request, from its HTTP Basic credentials only, checked by the container
 * ({@code HttpServletRequest.login}) against the security domain the console's login uses, so the same users and
 * roles, and the EJBs behind see the same caller. A request the container already knows from the console's session
 * cookie is refused: the cookie is sent by a browser on its own, the Authorization header never is, so no page of
 * another site can make an action happen (docs/contract.md §12). The login lasts for the request: it is undone when
 * the request ends, and a session the login made is dropped with it.
 */
final class BasicLogin implements AutoCloseable {

    private final HttpServletRequest request;
    private final boolean hadSession;

    private BasicLogin(HttpServletRequest request, boolean hadSession) {
        this.request = request;
        this.hadSession = hadSession;
    }

    /** The request's login, or a 401 saying what was missing or wrong; {@code throttle} counts the failures. */
    static BasicLogin of(HttpServletRequest request, LoginThrottle throttle) {
        if (request.getUserPrincipal() != null) {
            if (HttpServletRequest.BASIC_AUTH.equals(request.getAuthType())) {
                return new BasicLogin(null, true); // the application's own BASIC login checked them already
            }
            throw unauthorized("the management API takes HTTP Basic credentials only; a console session is not "
                    + "accepted: send an Authorization header without the console's session cookie");
        }
        String header = request.getHeader("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            throw unauthorized("credentials needed: HTTP Basic with a user of the console's realm");
        }
        String userAndPassword;
        try {
            userAndPassword = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            throw unauthorized("the Basic credentials are not base64 of user:password");
        }
        int colon = userAndPassword.indexOf(':');
        if (colon < 1) {
            throw unauthorized("the Basic credentials are not base64 of user:password");
        }
        // the connection's address, or through a trusted reverse proxy the client it forwards
        Enumeration<String> forwarded = request.getHeaders("X-Forwarded-For");
        String address = throttle.clientKey(PeerAddress.of(request),
                forwarded == null ? List.of() : Collections.list(forwarded));
        throttle.attempt(address); // counted as failed until it succeeds
        boolean hadSession = request.getSession(false) != null;
        try {
            request.login(userAndPassword.substring(0, colon), userAndPassword.substring(colon + 1));
        } catch (ServletException wrong) {
            throw unauthorized("wrong user name or password");
        }
        throttle.succeeded(address);
        return new BasicLogin(request, hadSession);
    }

    static ApiProblem unauthorized(String detail) {
        return new ApiProblem(401, detail);
    }

    @Override
    public void close() {
        if (request == null) {
            return;
        }
        boolean loggedOut;
        try {
            request.logout();
            loggedOut = true;
        } catch (ServletException | RuntimeException failed) {
            loggedOut = false;
        }
        // a session the login opened goes; one the caller had goes too if the login could not be undone in it
        HttpSession session = request.getSession(false);
        if (session != null && (!hadSession || !loggedOut)) {
            session.invalidate();
        }
    }
}
