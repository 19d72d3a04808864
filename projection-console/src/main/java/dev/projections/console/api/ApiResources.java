package dev.projections.console.api;

import dev.projections.ParkedSelection;
import dev.projections.ProjectionStatus;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.console.CursorToken;
import dev.projections.console.QueryString;
import dev.projections.ee.admin.ConsoleAdmin;
import dev.projections.ee.admin.ConsoleReads;
import dev.projections.inspect.Instances;
import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkPage;
import dev.projections.inspect.MarkRow;
import dev.projections.inspect.MarkState;
import dev.projections.inspect.PageCursor;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What each endpoint of the management API does (the OpenAPI document served at /projections/api/v1/openapi.yaml), over the console's own beans: reads
 * through {@link ConsoleReads}, actions through {@link ConsoleAdmin}, which checks the role again, writes the audit
 * row under the caller's name and commits both together — the API and the console are two faces of the same
 * operations. Bulk actions on marks take an optional {@code expected} count and are refused with 409 when the marks
 * they select are no longer that many, as the console's bulk buttons are.
 */
final class ApiResources {

    /** Marks one page lists when the caller does not say. */
    static final int DEFAULT_PAGE = 100;
    static final int MAX_PAGE = 500;

    static final Set<String> REBUILD_FIELDS = Set.of("tenant", "scope", "partitions");
    static final Set<String> SCOPE_FIELDS = Set.of("from", "to", "changedSince", "filter");
    static final Set<String> MARK_ACTION_FIELDS = Set.of("tenant", "id", "error", "expected");

    private final ConsoleReads reads;
    private final ConsoleAdmin admin;
    private final ApiLinks links;

    ApiResources(ConsoleReads reads, ConsoleAdmin admin, ApiLinks links) {
        this.reads = reads;
        this.admin = admin;
        this.links = links;
    }

    /** What an endpoint answers: a status, a JSON body, and the {@code Location} of what it created. */
    record Reply(int status, JsonObjectBuilder body, String location) {
        static Reply ok(JsonObjectBuilder body) {
            return new Reply(200, body, null);
        }
    }

    Reply projections() {
        JsonArrayBuilder list = Json.createArrayBuilder();
        reads.overview().forEach(status -> list.add(ApiJson.projection(status, latestRun(status.projection()), links)));
        return Reply.ok(Json.createObjectBuilder().add("projections", list));
    }

    Reply projection(String name) {
        JsonObjectBuilder json = ApiJson.projection(status(name), latestRun(name), links)
                .add("rebuildable", reads.rebuildable(name))
                .add("settings", ApiJson.settings(reads.projectionSettings(name)))
                .add("topErrors", ApiJson.errors(reads.topErrors(MarkFilter.failing(name))));
        return Reply.ok(json);
    }

    /**
     * Every instance that reported, with its role, and the projections no live instance processing marks deploys:
     * what the health warning and {@code projection.nodes.processing} say too (docs/design.md D54).
     */
    Reply instances() {
        Instances instances = reads.instances();
        JsonArrayBuilder list = Json.createArrayBuilder();
        instances.nodes().forEach(node -> list.add(ApiJson.instance(node, instances)));
        return Reply.ok(Json.createObjectBuilder().add("instances", list)
                .add("unprocessedProjections", Json.createArrayBuilder(instances.unprocessed())));
    }

    Reply pause(String name) {
        // an unknown name is the engine's refusal (UnknownProjection): 404, as a read's known() says
        admin.pause(name);
        return projections(name);
    }

    Reply resume(String name) {
        // an unknown name is the engine's refusal (UnknownProjection): 404, as a read's known() says
        admin.resume(name);
        return projections(name);
    }

    private Reply projections(String name) {
        return Reply.ok(ApiJson.projection(status(name), latestRun(name), links));
    }

    /** The projection's newest run, of whichever tenant (the overview's is the no-tenant one's). */
    private RebuildProgress latestRun(String name) {
        return reads.rebuildHistory(name, 1).stream().findFirst().orElse(null);
    }

    Reply rebuilds(String name) {
        known(name);
        JsonArrayBuilder runs = Json.createArrayBuilder();
        reads.rebuildHistory(name, 20).forEach(run -> runs.add(ApiJson.rebuild(run, links)));
        return Reply.ok(Json.createObjectBuilder().add("rebuilds", runs));
    }

    /**
     * Starts rebuild runs: {@code {}} of every tenant (the {@code TenantDirectory}'s, or the one without a tenant when
     * the application has none), {@code {"tenant": "acme"}} of one ({@code ""}: no tenant), with an optional
     * {@code scope} and {@code partitions}. 201 with the {@code Location} of the first run and every run in the body.
     */
    Reply startRebuild(String name, JsonBody body) {
        return start(name, body, false);
    }

    /**
     * A verification (docs/design.md D57), with the body of a rebuild ({@code {}}: every tenant, every id); 201 and
     * the first run's {@code Location}, 409 for a projection that does not implement {@code Verifiable} or while a
     * rebuild or a verification of it runs.
     */
    Reply startVerification(String name, JsonBody body) {
        return start(name, body, true);
    }

    private Reply start(String name, JsonBody body, boolean verify) {
        known(name);
        String tenant = body.has("tenant") ? body.string("tenant") : null;
        if (tenant == null && !reads.hasTenantDirectory()) {
            tenant = "";
        }
        RebuildScope scope = scope(body.object("scope", SCOPE_FIELDS));
        Long partitions = body.number("partitions");
        if (partitions != null && (partitions < 1 || partitions > Integer.MAX_VALUE)) {
            throw ApiProblem.badRequest("\"partitions\" must be 1 or more, was " + partitions);
        }
        String forTenant = tenant;
        int parts = partitions == null ? 1 : partitions.intValue();
        List<String> started = verify ? admin.verify(name, forTenant, scope, parts)
                : admin.rebuild(name, forTenant, scope, parts);
        JsonArrayBuilder runs = Json.createArrayBuilder();
        started.forEach(id -> runs.add(verify ? ApiJson.verification(reads.rebuildProgress(id), links)
                : ApiJson.rebuild(reads.rebuildProgress(id), links)));
        JsonObjectBuilder json = Json.createObjectBuilder().add("runs", runs);
        return started.isEmpty() ? Reply.ok(json) : new Reply(201, json,
                verify ? links.verification(started.get(0)) : links.rebuild(started.get(0)));
    }

    private static RebuildScope scope(JsonBody scope) {
        if (scope == null) {
            return RebuildScope.everything();
        }
        String since = scope.string("changedSince");
        Instant changedSince;
        try {
            changedSince = since == null ? null : Instant.parse(since);
        } catch (DateTimeParseException notAnInstant) {
            throw ApiProblem.badRequest("\"changedSince\" must be an ISO-8601 instant such as 2026-12-01T10:00:00Z, "
                    + "was \"" + since + "\"");
        }
        try {
            return new RebuildScope(scope.string("from"), scope.string("to"), changedSince, scope.string("filter"));
        } catch (IllegalArgumentException bad) {
            throw ApiProblem.badRequest(bad.getMessage());
        }
    }

    Reply rebuild(String runId) {
        RebuildProgress run = run(runId);
        return Reply.ok(ApiJson.rebuild(run, links)
                .add("partitionDetails", ApiJson.partitions(reads.rebuildPartitions(runId))));
    }

    Reply verification(String runId) {
        return Reply.ok(ApiJson.verification(verificationRun(runId), links));
    }

    Reply cancelVerification(String runId) {
        verificationRun(runId);
        admin.cancelRebuild(runId);
        return Reply.ok(ApiJson.verification(verificationRun(runId), links));
    }

    private RebuildProgress verificationRun(String runId) {
        return reads.findRebuild(runId).filter(RebuildProgress::verifies)
                .orElseThrow(() -> ApiProblem.notFound("no verification \"" + runId + "\""));
    }

    Reply cancel(String runId) {
        run(runId);
        admin.cancelRebuild(runId);
        return Reply.ok(ApiJson.rebuild(run(runId), links));
    }

    private RebuildProgress run(String runId) {
        return reads.findRebuild(runId).orElseThrow(() -> ApiProblem.notFound("no rebuild run \"" + runId + "\""));
    }

    /** A keyset page of marks: {@code state} failing (not parked), parked or pending (all), the default. */
    Reply marks(String name, Map<String, String> query) {
        known(name);
        MarkFilter filter = filter(name, query.getOrDefault("state", "pending"), query.get("tenant"),
                query.get("error"));
        PageCursor cursor = null;
        String after = query.get("after");
        if (after != null && !after.isEmpty()) {
            try {
                cursor = CursorToken.decode(after);
            } catch (IllegalArgumentException malformed) {
                throw ApiProblem.badRequest("\"after\" is not a position this API wrote: " + malformed.getMessage());
            }
        }
        int limit = limit(query.get("limit"));
        MarkPage page = reads.page(filter, cursor, true, limit);
        JsonArrayBuilder rows = Json.createArrayBuilder();
        for (MarkRow row : page.rows()) {
            rows.add(ApiJson.mark(row));
        }
        JsonObjectBuilder json = Json.createObjectBuilder().add("marks", rows);
        if (page.hasNext()) {
            json.add("next", nextPage(name, query, CursorToken.encode(page.last())));
        } else {
            json.addNull("next");
        }
        return Reply.ok(json);
    }

    private String nextPage(String name, Map<String, String> query, String after) {
        QueryString next = new QueryString();
        for (String parameter : List.of("state", "tenant", "error", "limit")) {
            next.add(parameter, query.get(parameter));
        }
        return links.projection(name) + "/marks?" + next.add("after", after);
    }

    private static int limit(String text) {
        if (text == null) {
            return DEFAULT_PAGE;
        }
        try {
            int limit = Integer.parseInt(text.trim());
            if (limit >= 1 && limit <= MAX_PAGE) {
                return limit;
            }
        } catch (NumberFormatException notANumber) {
            // named below
        }
        throw ApiProblem.badRequest("\"limit\" must be 1.." + MAX_PAGE + ", was \"" + text + "\"");
    }

    private static MarkFilter filter(String name, String state, String tenant, String error) {
        try {
            return switch (state) {
                case "failing" -> new MarkFilter(name, tenant, MarkState.NOT_PARKED, true, error);
                case "parked" -> new MarkFilter(name, tenant, MarkState.PARKED, false, error);
                case "pending" -> new MarkFilter(name, tenant, MarkState.ANY, false, error);
                default -> throw ApiProblem.badRequest("\"state\" must be failing, parked or pending, was \""
                        + state + "\"");
            };
        } catch (IllegalArgumentException bad) {
            throw ApiProblem.badRequest(bad.getMessage());
        }
    }

    /**
     * Retries failing marks: one by {@code id} (with its {@code tenant}, {@code ""} by default), or those of a
     * {@code tenant} and {@code error} prefix, every failing one without.
     */
    Reply retry(String name, JsonBody body) {
        known(name);
        String tenant = body.string("tenant");
        String id = body.string("id");
        if (id != null) {
            admin.retry(name, tenant == null ? "" : tenant, id);
            return Reply.ok(Json.createObjectBuilder().add("retried", 1));
        }
        String error = errorPrefix(body);
        expect(body, filter(name, "failing", tenant, error));
        int retried = admin.retryFailed(name, tenant, error);
        return Reply.ok(Json.createObjectBuilder().add("retried", retried));
    }

    /** Resumes parked marks (due now, attempts kept): one by {@code id}, or by {@code tenant} and {@code error}. */
    Reply resumeParked(String name, JsonBody body) {
        ParkedSelection selection = parked(name, body);
        int resumed = admin.resumeParked(selection);
        return Reply.ok(Json.createObjectBuilder().add("resumed", resumed));
    }

    /** Skips (deletes) parked marks, each audited with its last error: one by {@code id}, or by the same filters. */
    Reply skipParked(String name, JsonBody body) {
        ParkedSelection selection = parked(name, body);
        int skipped = admin.skipParked(selection);
        return Reply.ok(Json.createObjectBuilder().add("skipped", skipped));
    }

    private ParkedSelection parked(String name, JsonBody body) {
        known(name);
        String tenant = body.string("tenant");
        String id = body.string("id");
        String error = errorPrefix(body);
        try {
            if (id != null) {
                return ParkedSelection.mark(name, tenant == null ? "" : tenant, id);
            }
            // bounded by the instant before the count, as the console's bulk buttons are by the list's: a mark parked
            // after the caller's count is neither counted nor skipped (engine review E1)
            Instant countedAt = reads.now();
            expect(body, filter(name, "parked", tenant, error));
            return new ParkedSelection(name, tenant, null, error).parkedBy(countedAt);
        } catch (IllegalArgumentException bad) {
            throw ApiProblem.badRequest(bad.getMessage());
        }
    }

    private static String errorPrefix(JsonBody body) {
        String error = body.string("error");
        return error == null || error.isEmpty() ? null : error;
    }

    /** Refuses a bulk action whose caller counted a different number of marks than its selection now holds. */
    private void expect(JsonBody body, MarkFilter selected) {
        Long expected = body.number("expected");
        if (expected == null) {
            return;
        }
        if (expected < 0 || expected > ConsoleReads.COUNT_CAP) {
            // counts stop at the cap: a larger number could never be checked
            throw ApiProblem.badRequest("\"expected\" must be 0.." + ConsoleReads.COUNT_CAP + ", was " + expected
                    + "; select fewer marks (by tenant or error) to act on more than that with a count");
        }
        long now = reads.count(selected).value();
        if (now != expected) {
            throw ApiProblem.conflict("the selection holds " + (now > ConsoleReads.COUNT_CAP ? "more than "
                    + ConsoleReads.COUNT_CAP : now) + " marks, not the " + expected + " expected; nothing was done");
        }
    }

    private ProjectionStatus status(String name) {
        known(name);
        return reads.overview().stream().filter(s -> s.projection().equals(name)).findFirst()
                .orElseThrow(() -> ApiProblem.notFound("unknown projection \"" + name + "\""));
    }

    private void known(String name) {
        if (!reads.projectionNames().contains(name)) {
            throw ApiProblem.notFound("unknown projection \"" + name + "\"; known projections: "
                    + new TreeSet<>(reads.projectionNames()));
        }
    }
}
