package dev.projections.console;

import dev.projections.inspect.MarkFilter;
import dev.projections.inspect.MarkState;
import dev.projections.inspect.PageCursor;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A mark list as a GET URL, so that "failing marks of order-search in tenant acme, the page after X" is a link one can
 * share (docs/contract.md §12): {@code projection}, {@code failing=true}, {@code state}, {@code tenant} (absent: all
 * tenants; present and empty: the marks without a tenant; the filter form's {@code tenants=all} box wins over it),
 * {@code error} (a prefix of the last error), and the position: {@code after} or {@code before} a {@link CursorToken},
 * with the {@code page} number it shows. The links the pages had before (overview, tenants, top errors, find) are
 * URLs of this form without a position.
 */
public final class MarkListQuery implements Serializable {

    private final String projection;
    private final boolean failingOnly;
    private final MarkState state;
    /** {@code null}: all tenants. */
    private final String tenant;
    private final String errorPrefix;
    private final PageCursor cursor;
    private final boolean forward;
    private final int page;
    /** Why a hand-made position was not used, or {@code null}. */
    private final String cursorProblem;

    private MarkListQuery(String projection, boolean failingOnly, MarkState state, String tenant, String errorPrefix,
                          PageCursor cursor, boolean forward, int page, String cursorProblem) {
        this.projection = projection;
        this.failingOnly = failingOnly;
        this.state = state;
        this.tenant = tenant;
        this.errorPrefix = errorPrefix;
        this.cursor = cursor;
        this.forward = forward;
        this.page = cursor == null ? 1 : Math.max(forward ? 2 : 1, page);
        this.cursorProblem = cursorProblem;
    }

    /** The list a request's parameters name; what cannot be read falls back to the first page, saying why. */
    public static MarkListQuery from(Map<String, String> parameters) {
        String stateName = parameters.get("state");
        MarkState state = Arrays.stream(MarkState.values()).filter(s -> s.name().equals(stateName)).findFirst()
                .orElse(MarkState.ANY);
        String tenant = "all".equals(parameters.get("tenants")) || parameters.get("tenant") == null ? null
                : parameters.get("tenant").trim();
        String error = parameters.getOrDefault("error", "");
        // a longer prefix (a hand-made URL) is cut to what the filter accepts rather than failing the page
        error = error.length() > 500 ? error.substring(0, 500) : error;
        String after = parameters.get("after");
        String before = parameters.get("before");
        boolean forward = after != null && !after.isEmpty();
        String token = forward ? after : before != null && !before.isEmpty() ? before : null;
        PageCursor cursor = null;
        String problem = null;
        if (token != null) {
            try {
                cursor = CursorToken.decode(token);
            } catch (IllegalArgumentException malformed) {
                problem = malformed.getMessage();
            }
        }
        return new MarkListQuery(parameters.get("projection"), "true".equals(parameters.get("failing")), state,
                tenant, error, cursor, forward || cursor == null, page(parameters.get("page")), problem);
    }

    private static int page(String value) {
        try {
            return value == null ? 1 : Math.max(1, Integer.parseInt(value.trim()));
        } catch (NumberFormatException notANumber) {
            return 1;
        }
    }

    /** The same list of {@code known}'s projection when this one names none or one not deployed. */
    public MarkListQuery withProjection(String known) {
        return new MarkListQuery(known, failingOnly, state, tenant, errorPrefix, cursor, forward, page, cursorProblem);
    }

    /** The same list's first page. */
    public MarkListQuery first() {
        return new MarkListQuery(projection, failingOnly, state, tenant, errorPrefix, null, true, 1, null);
    }

    /** The same list's page after {@code last}, numbered {@code number}. */
    public MarkListQuery after(PageCursor last, int number) {
        return new MarkListQuery(projection, failingOnly, state, tenant, errorPrefix, last, true, number, null);
    }

    /** The same list's page before {@code first}, numbered {@code number}. */
    public MarkListQuery before(PageCursor first, int number) {
        return new MarkListQuery(projection, failingOnly, state, tenant, errorPrefix, first, false, number, null);
    }

    public MarkFilter filter() {
        return new MarkFilter(projection, tenant, state, failingOnly, errorPrefix);
    }

    /**
     * The query string of this list ({@code projection=…&failing=true…}), parameters at their defaults left out, so
     * that a shared link says what it shows and nothing else.
     */
    public String toQueryString() {
        QueryString query = new QueryString().add("projection", projection);
        if (failingOnly) {
            query.add("failing", "true");
        }
        if (state != MarkState.ANY) {
            query.add("state", state.name());
        }
        if (tenant != null) {
            query.add("tenant", tenant);
        }
        query.addNonEmpty("error", errorPrefix);
        if (cursor != null) {
            query.add(forward ? "after" : "before", CursorToken.encode(cursor));
            query.add("page", String.valueOf(page));
        }
        return query.toString();
    }

    public String projection() {
        return projection;
    }

    public boolean failingOnly() {
        return failingOnly;
    }

    public MarkState state() {
        return state;
    }

    /** {@code null} for all tenants, {@code ""} for the marks without a tenant. */
    public String tenant() {
        return tenant;
    }

    public String errorPrefix() {
        return errorPrefix;
    }

    /** {@code null} for the first page. */
    public PageCursor cursor() {
        return cursor;
    }

    public boolean forward() {
        return forward;
    }

    public int page() {
        return page;
    }

    public String cursorProblem() {
        return cursorProblem;
    }
}
