package dev.projections.demo.api;

import dev.projections.demo.tenancy.DemoTenancy;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import jakarta.servlet.http.HttpServletResponse;

/** The request's tenant, from header {@code X-Tenant} (none by default), for the whole request. */
@WebFilter("/api/*")
public class TenantFilter implements Filter {

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String tenant;
        try {
            tenant = RequestValues.tenant(((HttpServletRequest) request).getHeader("X-Tenant"));
        } catch (BadRequestJson tooLong) {
            HttpServletResponse http = (HttpServletResponse) response;
            http.setStatus(400);
            http.setContentType("application/json");
            http.getWriter().write("{\"error\":\"" + tooLong.getMessage() + "\"}");
            return;
        }
        String previous = DemoTenancy.enter(tenant);
        try {
            chain.doFilter(request, response);
        } finally {
            DemoTenancy.restore(previous);
        }
    }
}
