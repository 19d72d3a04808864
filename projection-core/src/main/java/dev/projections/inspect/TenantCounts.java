package dev.projections.inspect;

/** Pending and failing marks of one projection and tenant ({@code ""} for none). */
public record TenantCounts(String projection, String tenant, long pending, long failing) {
}
