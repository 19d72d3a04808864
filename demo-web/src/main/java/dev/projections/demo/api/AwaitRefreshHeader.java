package dev.projections.demo.api;

import dev.projections.jaxrs.AwaitRefreshHeaderFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * Every request of the demo API may ask for read-your-writes with {@code X-Await-Refresh: 2s}: its response then
 * follows the refresh of what it changed, and says so in {@code X-Projections-Refreshed} (docs/guide/using.md "Read your writes").
 */
@Provider
public class AwaitRefreshHeader extends AwaitRefreshHeaderFilter {
}
