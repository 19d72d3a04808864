package dev.projections.console;

import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Who is logged in. {@link #isAdmin()} only decides which buttons are rendered; the actions themselves are
 * checked by the {@code ConsoleAdmin} EJB, whatever a page showed.
 */
@Named("projectionsUser")
@RequestScoped
public class ConsoleUser {

    @Inject
    HttpServletRequest request;

    public String getName() {
        return request.getUserPrincipal() == null ? "" : request.getUserPrincipal().getName();
    }

    public boolean isAdmin() {
        return request.isUserInRole("projection-admin");
    }

    /** The role as the header shows it: "admin", "viewer", "none". */
    public String getRole() {
        return isAdmin() ? Text.of("user.role.admin")
                : request.isUserInRole("projection-viewer") ? Text.of("user.role.viewer") : Text.of("user.role.none");
    }

    /** Ends the session and goes back to the login. */
    public String logout() throws ServletException {
        ExternalContext external = FacesContext.getCurrentInstance().getExternalContext();
        request.logout();
        external.invalidateSession();
        return "index?faces-redirect=true"; // relative: the console may live under /projections/ of a WAR
    }
}
