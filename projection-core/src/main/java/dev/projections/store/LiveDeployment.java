package dev.projections.store;

/**
 * An instance that deployed {@code projection} lately ({@code projection_instance}), and whether it processes marks
 * ({@code projection_node.processing}; an instance without a row there is of an earlier release, and processes).
 */
public record LiveDeployment(String instanceId, String projection, boolean processing) {
}
