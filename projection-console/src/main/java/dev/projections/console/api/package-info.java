/**
 * Internal: the JSON management API under {@code /projections/api/v1/} (the OpenAPI document served at /projections/api/v1/openapi.yaml), a second face
 * of the console's operations for scripts: HTTP Basic over the console's realm, the console's roles, its audit.
 * <p>
 * The role-checked EJBs are injected with {@code @Inject}, never {@code @EJB}: Payara leaves {@code @EJB} fields of a
 * web-fragment jar null (docs/pitfalls.md #66).
 */
package dev.projections.console.api;
