/**
 * API: JAX-RS support an application registers itself — {@link dev.projections.jaxrs.AwaitRefreshHeaderFilter}, the
 * read-your-writes wait asked for by a request header (docs/contract.md §14).
 */
package dev.projections.jaxrs;
