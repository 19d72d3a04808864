package dev.projections.inspect;

import java.io.Serializable;
import java.time.Instant;

/** A position in a mark list: the sort key of a row (due time, tenant, id). */
public record PageCursor(Instant availableAt, String tenant, String id) implements Serializable {
}
