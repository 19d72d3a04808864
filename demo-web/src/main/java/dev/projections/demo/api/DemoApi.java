package dev.projections.demo.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The demo's JSON API, under {@code /demo/api}. */
@ApplicationPath("/api")
public class DemoApi extends Application {
}
