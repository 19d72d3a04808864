package dev.projections.console.api;

import dev.projections.ProjectionStatus;
import dev.projections.RebuildProgress;
import dev.projections.RebuildScope;
import dev.projections.config.ProjectionSettings;
import dev.projections.inspect.ErrorGroup;
import dev.projections.inspect.ErrorGroups;
import dev.projections.inspect.InstanceReport;
import dev.projections.inspect.Instances;
import dev.projections.inspect.MarkRow;
import dev.projections.inspect.PartitionProgress;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The management API's JSON (the OpenAPI document served at /projections/api/v1/openapi.yaml): instants as ISO-8601 text, durations in milliseconds,
 * absent values as {@code null} so every field is always there, and each resource with the link that reads it.
 */
final class ApiJson {

    private ApiJson() {
    }

    /** A projection as the list shows it: its state, counts, oldest due age and latest rebuild of any tenant. */
    static JsonObjectBuilder projection(ProjectionStatus status, RebuildProgress latestRebuild, ApiLinks links) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("name", status.projection())
                .add("state", status.suspendedReason() != null ? "suspended" : status.paused() ? "paused" : "running");
        put(json, "suspendedReason", status.suspendedReason());
        json.add("pending", status.pending())
                .add("due", status.dueNow())
                .add("failing", status.failing())
                .add("parked", status.parked());
        put(json, "oldestDueAgeMillis", millis(status.oldestDueAge()));
        put(json, "lastError", status.lastError());
        if (latestRebuild == null) {
            json.addNull("latestRebuild");
        } else {
            json.add("latestRebuild", rebuild(latestRebuild, links));
        }
        return json.add("links", Json.createObjectBuilder()
                .add("self", links.projection(status.projection()))
                .add("marks", links.projection(status.projection()) + "/marks")
                .add("rebuilds", links.projection(status.projection()) + "/rebuilds"));
    }

    /** An instance as it last reported, with its role and whether it counts as gone (3 sweep intervals silent). */
    static JsonObjectBuilder instance(InstanceReport node, Instances instances) {
        return Json.createObjectBuilder()
                .add("instance", node.instanceId())
                .add("self", node.instanceId().equals(instances.self()))
                .add("state", instances.gone(node) ? "gone" : "live")
                .add("role", node.processing() ? "processing" : "web")
                .add("startedAt", node.startedAt().toString())
                .add("lastSeen", node.lastSeen().toString())
                .add("workers", node.workers())
                .add("drainersBusy", node.drainersBusy())
                .add("claimsHeld", node.claimsHeld())
                .add("refreshesPerMinute", node.refreshesPerMinute())
                .add("clockSkewMillis", node.clockSkew().toMillis())
                .add("clockSkewed", instances.skewed(node))
                .add("projections", Json.createArrayBuilder(instances.deployedBy(node.instanceId())));
    }

    /** The settings in force, each with where its value came from. */
    static JsonObjectBuilder settings(ProjectionSettings settings) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        settings.values().forEach((key, value) -> {
            JsonObjectBuilder setting = Json.createObjectBuilder();
            put(setting, "value", value);
            put(setting, "origin", settings.origins().get(key));
            json.add(key, setting);
        });
        return json;
    }

    static JsonArrayBuilder errors(ErrorGroups groups) {
        JsonArrayBuilder json = Json.createArrayBuilder();
        for (ErrorGroup group : groups.groups()) {
            JsonObjectBuilder line = Json.createObjectBuilder();
            put(line, "error", group.head());
            json.add(line.add("marks", group.count()));
        }
        return json;
    }

    static JsonObjectBuilder rebuild(RebuildProgress run, ApiLinks links) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("id", run.runId())
                .add("projection", run.projection())
                .add("tenant", run.tenant())
                .add("state", run.state())
                .add("marked", run.marked())
                .add("remaining", run.remaining())
                .add("failing", run.failing())
                .add("ratePerSecond", run.ratePerSecond());
        ended(json, run);
        json.add("scope", scope(run.scope()))
                .add("partitions", run.partitions())
                .add("partitionsDone", run.partitionsDone())
                .add("takeovers", run.takeovers())
                .add("kind", run.kind());
        return json.add("links", Json.createObjectBuilder().add("self", run.verifies()
                ? links.verification(run.runId()) : links.rebuild(run.runId())));
    }

    /**
     * A verification: {@code checked} ids so far, {@code drifted} keys found and marked, {@code repaired} of them
     * refreshed since (null once cancelled or failed); its state RUNNING, FINISHED (with {@code failing} repairs left
     * failing, if any), FAILED or CANCELLED.
     */
    static JsonObjectBuilder verification(RebuildProgress run, ApiLinks links) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("id", run.runId())
                .add("projection", run.projection())
                .add("tenant", run.tenant())
                .add("state", RebuildProgress.FINISHED_FAILING.equals(run.state()) ? RebuildProgress.FINISHED
                        : run.state())
                .add("checked", run.checked())
                .add("drifted", run.marked())
                .add("failing", run.failing());
        if (run.repaired().isPresent()) {
            json.add("repaired", run.repaired().getAsLong());
        } else {
            json.addNull("repaired"); // cancelled or failed: its unrefreshed marks were deleted, the count is gone
        }
        ended(json, run);
        json.add("scope", scope(run.scope()))
                .add("partitions", run.partitions())
                .add("partitionsDone", run.partitionsDone());
        return json.add("links", Json.createObjectBuilder().add("self", links.verification(run.runId())));
    }

    /** When and by whom a run started, when it ended, who cancelled it, why it failed: null where none. */
    private static void ended(JsonObjectBuilder json, RebuildProgress run) {
        put(json, "startedAt", run.startedAt());
        put(json, "finishedAt", run.finishedAt());
        put(json, "startedBy", run.startedBy());
        put(json, "cancelledBy", run.cancelledBy());
        put(json, "lastError", run.lastError());
    }

    static JsonObjectBuilder scope(RebuildScope scope) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        put(json, "from", scope.from());
        put(json, "to", scope.to());
        put(json, "changedSince", scope.changedSince());
        put(json, "filter", scope.filter());
        return json;
    }

    static JsonArrayBuilder partitions(List<PartitionProgress> partitions) {
        JsonArrayBuilder json = Json.createArrayBuilder();
        for (PartitionProgress p : partitions) {
            JsonObjectBuilder line = Json.createObjectBuilder().add("number", p.number());
            put(line, "after", p.after());
            put(line, "upTo", p.upTo());
            put(line, "cursor", p.cursor());
            line.add("exhausted", p.exhausted()).add("marked", p.marked()).add("held", p.held());
            put(line, "leaseUntil", p.leaseUntil());
            json.add(line.add("takeovers", p.takeovers()).add("readModel", p.readModel()));
        }
        return json;
    }

    static JsonObjectBuilder mark(MarkRow row) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("tenant", row.tenant())
                .add("id", row.id())
                .add("parked", row.parked());
        put(json, "dueAt", row.parked() ? null : row.availableAt());
        put(json, "firstMarkedAt", row.firstMarkedAt());
        json.add("attempts", row.attempts());
        put(json, "lastFailedAt", row.lastFailedAt());
        put(json, "lastError", row.lastError());
        put(json, "claimedBy", row.claimedBy());
        put(json, "claimedUntil", row.claimedUntil());
        return json.add("priority", row.priority()).add("marks", row.markCount());
    }

    private static Long millis(Duration duration) {
        return duration == null ? null : duration.toMillis();
    }

    static void put(JsonObjectBuilder json, String name, Object value) {
        if (value == null) {
            json.addNull(name);
        } else if (value instanceof Long number) {
            json.add(name, number);
        } else if (value instanceof Instant instant) {
            json.add(name, instant.toString());
        } else {
            json.add(name, value.toString());
        }
    }
}
