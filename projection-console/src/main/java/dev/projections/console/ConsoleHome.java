package dev.projections.console;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code /projections/} of an application's WAR opens the overview. A welcome-file list in the web fragment would
 * do it too, but would replace the container's default welcome pages for the whole application when it has no list
 * of its own; this servlet is mapped to that one path only. (The console WAR has its own welcome file.)
 */
public class ConsoleHome extends HttpServlet {

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.sendRedirect("index.xhtml");
    }
}
