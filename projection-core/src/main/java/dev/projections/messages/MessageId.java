package dev.projections.messages;

import java.util.ArrayList;
import java.util.List;

/**
 * The ids of the product's WARNING and SEVERE log lines: each such line starts with its id ({@code PRJ203: rebuild run
 * … failed: …}), stable across releases, so that an alert or a search can name it. What each means and what to do is
 * written here, beside the code, and the guide's catalogue (docs/guide/messages.md) is generated from it
 * ({@link #markdownTable()}); a test fails the build on a WARNING or SEVERE log call without an id, an id that is not
 * here, or an id here that no log call uses. Hundreds: 1 the refresh engine, 2 rebuilds, verifications and drift,
 * 3 settings and metrics, 4 the server's container, 5 the console, its API and the demo server.
 */
public enum MessageId {

    PRJ101(
            "A batch met back-pressure: no database connection, container thread or EJB instance came "
                    + "in time, so its marks were given back, without counting an attempt for most of them (a "
                    + "key given back ten times in a row counts one), and the drainer stopped for now.",
            "Nothing, if it passes: the marks are refreshed once there is room. If it repeats, the "
                    + "datasource pool, the managed thread pool or the EJB bean pool (WFLYEJB0378) is too small "
                    + "for projection.workers, or the database is overloaded; if it is always the same key, "
                    + "that key's refresh is what waits."),
    PRJ102(
            "Marks met back-pressure, and giving them back or recording their failure failed too.",
            "Nothing is lost: the marks are due again when their lease ends. Look at the database and "
                    + "the pool."),
    PRJ103(
            "Claims met back-pressure and could not be given back.",
            "Nothing is lost: the marks are due again when their lease ends. Look at the database and "
                    + "the pool."),
    PRJ104(
            "The engine stopped while holding claims and could not release them.",
            "Nothing: the marks are due again when their lease ends, on this instance after a restart "
                    + "or on another one."),
    PRJ105(
            "This instance's clock differs from the database server's by more than the lease margin "
                    + "allows.",
            "Synchronise the clocks (NTP) of every instance and of the database server: beyond the "
                    + "limit two instances could hold one mark at once. The console's instances page and "
                    + "projection_clock_skew_seconds show the difference."),
    PRJ106(
            "No live instance with projection.processing=true deploys these projections: their marks "
                    + "are written and nothing refreshes them.",
            "Start an instance that processes (projection.processing=true) and deploys them; the "
                    + "console's instances page names them."),
    PRJ107(
            "The work of probing suspended projections failed while it ran on the container's thread "
                    + "(running it as the engine's identity, or the probe itself).",
            "Nothing if it passes: the next sweep probes again. Look at the cause if it repeats."),
    PRJ108(
            "The container refused a thread for the probe of suspended projections.",
            "Nothing if it passes; the managed thread factory or executor may be stopping or "
                    + "exhausted."),
    PRJ109(
            "A drainer could not be started: the drainers' pool is stopping (the application is being "
                    + "undeployed) or the call under the engine's identity failed.",
            "Nothing is lost: the sweep picks up the marks. If it repeats while the application runs, "
                    + "look at the cause logged with it."),
    PRJ110(
            "A drainer ended on a runtime exception the engine did not expect: a bug.",
            "Report it with the stack trace. Nothing is lost: the sweep picks up its marks."),
    PRJ111(
            "Looking for the probes of suspended projections failed (reading the suspensions or "
                    + "taking a probe turn).",
            "Nothing if it passes: the next sweep tries again."),
    PRJ112(
            "The projection failed across many keys at once and is suspended on every instance: only "
                    + "a probe refresh runs, once per probe interval.",
            "Fix what its refreshes fail on (the console shows the errors); the suspension lifts by "
                    + "itself when a probe succeeds, or resume it in the console."),
    PRJ113(
            "The projection should have been suspended, but writing the suspension failed.",
            "Its marks go on backing off one by one; look at the database."),
    PRJ114(
            "Refreshes were still running when the engine stopped.",
            "Nothing: their marks are due again when their lease ends."),
    PRJ115(
            "A refresh failed; the mark is retried after its backoff.",
            "Nothing if it passes. If it repeats, the console's failing list shows the error."),
    PRJ116(
            "A refresh failed for the last time its max-attempts allow, or with an exception that is "
                    + "not retried (NonRetryableRefreshException, a type in projection.non-retryable), and the "
                    + "mark is parked.",
            "Fix the cause, then resume or skip the mark in the console or the management API."),
    PRJ117(
            "Statements of the engine failed in the database since the last sweep (one line per "
                    + "sweep, the last error named).",
            "Look at the database and the datasource; the engine retries."),
    PRJ118(
            "The engine stopped before its lifecycle events were all told to the application's "
                    + "observers.",
            "Nothing in the engine; an observer that must see every event should read the state (the "
                    + "console, the API) at start."),
    PRJ119(
            "The container refused the thread that tells lifecycle events: events are not told, and "
                    + "those announced meanwhile are dropped.",
            "The managed thread factory may be stopping; an observer that must see every change "
                    + "should read the state (the console, the API) too."),
    PRJ120(
            "An observer of a lifecycle event threw, or was so slow that events were dropped.",
            "Fix the observer; the engine's change stood. projection.listener.failures counts them."),
    PRJ121(
            "This instance cannot LISTEN on its listen datasource for other instances' commits.",
            "It tries again and meanwhile looks for marks every projection.wake-up-interval. Check "
                    + "projection.listen-datasource and the database."),
    PRJ122(
            "The application's code threw after a refresh's outcome was settled (a RefreshListener, a "
                    + "TenantScope's close).",
            "Fix that code; the refresh stood. projection.listener.failures counts them."),
    PRJ123(
            "Drainer slots were reserved for threads that never ran, and were taken back.",
            "Nothing if it passes; the container may be short of threads."),
    PRJ124(
            "The last minutes of trends could not be written when the engine stopped.",
            "Nothing: the console's trends lack those minutes."),
    PRJ201(
            "A rebuild or verification step failed for a transient reason and rolled back.",
            "Nothing if it passes: the step is taken again from the run's cursor after its lease."),
    PRJ202(
            "The application's TenantScope threw when closed after a committed rebuild step.",
            "Fix the TenantScope; the step stood."),
    PRJ203(
            "A rebuild or verification run failed for good: its projection's ids(), drifted() or "
                    + "scope failed, or its steps kept failing.",
            "Fix the cause named, then start the run again."),
    PRJ204(
            "A run ended, but could not be read to tell its RebuildEnded event.",
            "Nothing in the engine: the run's end stands; observers miss this one event."),
    PRJ205(
            "A projection's drifted() answered with ids that were not on the page it was asked about: "
                    + "they are ignored, and their drift may go unrepaired.",
            "Make drifted() answer with ids as ids() lists them (same form, case, padding)."),
    PRJ206(
            "A projection's drift sample was not taken this sweep (the database, or the tenant "
                    + "directory failed).",
            "Nothing if it passes: the next sweep takes it."),
    PRJ207(
            "The application's TenantScope threw when closed after a committed drift sample.",
            "Fix the TenantScope; the sample stood."),
    PRJ208(
            "A drift sample's turn failed for a transient reason and rolled back.",
            "Nothing if it passes: it is taken again at the next sweep."),
    PRJ209(
            "A drift sample's turn failed for the projection's reason (drifted() or ids() threw, or "
                    + "the tenant could not be entered) and was stepped over.",
            "Fix the projection's drifted() or ids() for the keys named; the page is met again at the "
                    + "next round."),
    PRJ210(
            "A failed drift sample turn could not be stepped over.",
            "Nothing if it passes; look at the database."),
    PRJ301(
            "A per-projection setting names no deployed projection, in a source the server shares "
                    + "with other applications; it is ignored.",
            "Correct the name, or ignore the warning if the key is another application's."),
    PRJ302(
            "A gauge registered by name in the server's meter registry was not found there: it is "
                    + "kept locally, where nothing exports it.",
            "Report it with the server's version; the meter is missing from the server's metrics."),
    PRJ303(
            "MicroProfile Config is on the class path but gave no Config; settings are read without "
                    + "it.",
            "Check the server's MicroProfile Config subsystem; settings from its config sources are "
                    + "not seen."),
    PRJ304(
            "projection.test-support is on: the test endpoints answer anyone, without a login.",
            "Never in production: remove projection.test-support."),
    PRJ401(
            "A look for due marks between sweeps failed.",
            "Nothing if it passes: the next looks and the sweep go on."),
    PRJ402(
            "An @AwaitRefresh method's transaction was still open when it returned, so the "
                    + "interceptor cannot wait for its refresh.",
            "Put @AwaitRefresh on a method whose transaction ends before the interceptor (a CDI "
                    + "bean's @Transactional, or an EJB called from the annotated method)."),
    PRJ403(
            "Committed keys could not be handed to a drainer after the commit.",
            "Nothing is lost: the sweep picks them up."),
    PRJ404(
            "An application observer of MarksCommitted threw.",
            "Fix the observer; the marks are refreshed all the same."),
    PRJ405(
            "Drainers were still running some seconds after the engine stopped, and were interrupted.",
            "Nothing: their marks stay pending until their lease lapses. A refresh that ignores "
                    + "interruption delays undeployment."),
    PRJ406(
            "The tracing of refreshes could not start; refreshes are not traced.",
            "Check the server's OpenTelemetry configuration."),
    PRJ501(
            "A management API request failed on an unexpected error (answered 500).",
            "Report it with the stack trace."),
    PRJ502(
            "A management API action failed in the database (answered 503).",
            "Look at the database; the client may retry."),
    PRJ503(
            "A demo console user has no password and cannot log in.",
            "Set PROJECTION_ADMIN_PASSWORD / PROJECTION_VIEWER_PASSWORD before starting the demo "
                    + "server."),
    PRJ504(
            "A console action failed in the database; the page says what could not be done, the log why.",
            "Look at the database; the operator may try again: nothing of the action was done.");

    private final String meaning;
    private final String action;

    MessageId(String meaning, String action) {
        this.meaning = meaning;
        this.action = action;
    }

    public String meaning() {
        return meaning;
    }

    public String action() {
        return action;
    }

    /** The catalogue's table, as docs/guide/messages.md holds it between its generated-table markers. */
    public static String markdownTable() {
        List<String> lines = new ArrayList<>();
        lines.add("| id | what it means | what to do |");
        lines.add("|---|---|---|");
        for (MessageId id : values()) {
            lines.add("| `" + id.name() + "` | " + id.meaning + " | " + id.action + " |");
        }
        return String.join("\n", lines) + "\n";
    }
}
