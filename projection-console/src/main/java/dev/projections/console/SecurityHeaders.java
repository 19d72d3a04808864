package dev.projections.console;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Headers on every console response, the login page (a forward) and error pages included: no framing (against
 * click-jacking of the action buttons), no content sniffing, no referrer leaving the console, and a content
 * policy that admits only the console's own resources. Faces writes inline event handlers and scripts, hence
 * {@code 'unsafe-inline'} for scripts and styles; nothing is ever loaded from another origin. Mapped, for the
 * request, forward and error dispatches, to the console's pages: {@code /*} of the console WAR, {@code /projections/*}
 * of an application's WAR.
 */
public class SecurityHeaders implements Filter {

    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self' 'unsafe-inline'; "
            + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; "
            + "form-action 'self'; frame-ancestors 'none'";

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletResponse http = (HttpServletResponse) response;
        http.setHeader("X-Frame-Options", "DENY");
        http.setHeader("X-Content-Type-Options", "nosniff");
        http.setHeader("Referrer-Policy", "no-referrer");
        http.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        chain.doFilter(request, response);
    }
}
