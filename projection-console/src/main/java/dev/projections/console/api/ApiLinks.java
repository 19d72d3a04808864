package dev.projections.console.api;

import dev.projections.console.QueryString;

/**
 * The API's paths as this request reaches it: {@code /projections/api/v1} in the console WAR (context root
 * {@code /projections}) and in an application's WAR (the fragment maps it under {@code /projections/}), or wherever
 * a deployment put it.
 */
record ApiLinks(String base) {

    String projection(String name) {
        return base + "/projections/" + segment(name);
    }

    String rebuild(String runId) {
        return base + "/rebuilds/" + segment(runId);
    }

    String verification(String runId) {
        return base + "/verifications/" + segment(runId);
    }

    static String segment(String value) {
        return QueryString.encode(value);
    }
}
