/**
 * API and SPI. The API an application calls: {@link dev.projections.Projections} (the facade), {@link
 * dev.projections.Projected} (marks an entity), {@link dev.projections.Projection} (a read model), and the values
 * they return. The SPI an application may implement as CDI beans: {@link dev.projections.TenantResolver}, {@link
 * dev.projections.TenantScope}, {@link dev.projections.TenantDirectory} and {@link dev.projections.RefreshListener}.
 * Two sub-packages are API too: {@code dev.projections.lifecycle} (the lifecycle events an application observes) and
 * {@code dev.projections.jaxrs} (the read-your-writes header filter an application registers). {@code dev.projections.spi}
 * holds what another module implements or reads (refresh tracing, the running engines' health). Every other
 * sub-package is internal and may change without notice; each package's {@code package-info} says which it is.
 */
package dev.projections;
