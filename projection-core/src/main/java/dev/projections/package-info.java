/**
 * API and SPI. The API an application calls: {@link dev.projections.Projections} (the facade), {@link
 * dev.projections.Projected} (marks an entity), {@link dev.projections.Projection} (a read model), and the values
 * they return. The SPI an application may implement as CDI beans: {@link dev.projections.TenantResolver}, {@link
 * dev.projections.TenantScope}, {@link dev.projections.TenantDirectory} and {@link dev.projections.RefreshListener}.
 * Everything in the sub-packages is internal and may change without notice.
 */
package dev.projections;
