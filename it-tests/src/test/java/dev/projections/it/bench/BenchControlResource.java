package dev.projections.it.bench;

import dev.projections.Projections;
import dev.projections.RebuildProgress;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/**
 * What the server benchmark asks of the engine in the benchmark's EAR only (the demo has no scripted operations yet):
 * {@code POST /demo/api/bench/{projection}/pause|resume|rebuild} and {@code GET /demo/api/bench/rebuilds/{runId}}.
 * Each call is one {@link Projections} call, as the console's buttons make.
 */
@RequestScoped
@Path("/bench")
@Produces(MediaType.APPLICATION_JSON)
public class BenchControlResource {

    @Inject
    Projections projections;

    @POST
    @Path("{projection}/pause")
    public Map<String, Object> pause(@PathParam("projection") String projection) {
        projections.pause(projection);
        return Map.of("paused", projection);
    }

    @POST
    @Path("{projection}/resume")
    public Map<String, Object> resume(@PathParam("projection") String projection) {
        projections.resume(projection);
        return Map.of("resumed", projection);
    }

    @POST
    @Path("{projection}/rebuild")
    public Map<String, Object> rebuild(@PathParam("projection") String projection) {
        return Map.of("runId", projections.rebuild(projection));
    }

    /** {@code state} and {@code ended} of a run, plain text fields the benchmark reads without a JSON library. */
    @GET
    @Path("rebuilds/{runId}")
    public Map<String, Object> progress(@PathParam("runId") String runId) {
        RebuildProgress progress = projections.rebuildProgress(runId);
        return Map.of("state", progress.state(), "ended", progress.ended(), "marked", progress.marked());
    }
}
