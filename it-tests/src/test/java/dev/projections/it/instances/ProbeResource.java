package dev.projections.it.instances;

import dev.projections.Projections;
import dev.projections.demo.tenancy.DemoTenancy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code POST /demo/api/probe/{ids}} with {@code X-Tenant}: one business transaction that adds 1 to
 * {@code probe_source.value} of each id (comma-separated) in the caller's tenant and marks them for the probe.
 */
@RequestScoped
@Path("/probe/{ids}")
@Produces(MediaType.APPLICATION_JSON)
public class ProbeResource {

    @Inject
    Projections projections;

    @Resource(lookup = "java:jboss/datasources/ProjectionDS")
    DataSource dataSource;

    @POST
    @Transactional
    public Map<String, Object> touch(@PathParam("ids") String ids) throws SQLException {
        List<String> sorted = List.of(ids.split(",")).stream().sorted().distinct().toList();
        try (Connection connection = dataSource.getConnection();
             PreparedStatement upsert = connection.prepareStatement("""
                     INSERT INTO probe_source (tenant_id, id, value) VALUES (?, ?, 1)
                     ON CONFLICT (tenant_id, id) DO UPDATE SET value = probe_source.value + 1""")) {
            for (String id : sorted) {
                upsert.setString(1, DemoTenancy.current());
                upsert.setString(2, id);
                upsert.executeUpdate();
            }
        }
        projections.markDirty(ProbeProjection.NAME, sorted);
        return Map.of("touched", sorted.size());
    }
}
