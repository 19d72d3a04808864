package dev.projections.refresh;

import dev.projections.MarkKey;
import dev.projections.Projection;
import dev.projections.Verifiable;
import dev.projections.store.RebuildRun;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The page of ids a rebuild step marks: {@code ids(cursor, pageSize)} of the run's projection, inside its scope (for a
 * verification's read-model partition, {@code readModelIds(cursor, pageSize)}), checked against the contract of
 * {@link Projection#ids}. Anything wrong with it is the projection's and fails the
 * run ({@link BadIdsException}); a timeout or a lost connection is transient, and the step is retried.
 */
final class RebuildPage {

    private static final Logger LOG = Logger.getLogger(RebuildPage.class.getName());

    private RebuildPage() {
    }

    /** The ids after {@code run}'s cursor, at most {@code pageSize}, each valid, strictly after the cursor. */
    static List<String> after(Projection projection, RebuildRun run, int pageSize) {
        try {
            List<String> ids = run.walksReadModel() ? readModelIds(projection, run, pageSize)
                    : run.scope().isEverything() ? projection.ids(run.cursor(), pageSize)
                    : projection.ids(run.cursor(), pageSize, run.scope());
            for (String id : ids) {
                checked(id, run);
            }
            if (ids.size() > pageSize) {
                throw new IllegalStateException(lister(run) + " of " + run.projection() + " returned " + ids.size()
                        + " ids, more than the limit " + pageSize);
            }
            if (!ids.isEmpty() && ids.get(ids.size() - 1).equals(run.cursor())) {
                throw new IllegalStateException(lister(run) + " of " + run.projection() + " returned a page ending at its cursor "
                        + run.cursor() + ": a page must hold only ids strictly after the cursor");
            }
            return ids;
        } catch (RuntimeException e) {
            if (Transient.is(e)) {
                throw e; // a timeout or a lost connection: the step rolls back and is retried from the cursor
            }
            throw new BadIdsException(e);
        } catch (LinkageError e) {
            throw new BadIdsException(e);
        }
    }

    /**
     * For a verification: those of {@code ids} the projection reports drifted, in the page's order. An id it reports
     * that is not on the page is ignored (only the page was asked about); its failing to answer is the projection's
     * and fails the run, as a failing {@code ids} does, unless it is transient.
     */
    static List<String> drifted(Projection projection, RebuildRun run, List<String> ids) throws Exception {
        return drifted(projection, run.projection(), ids);
    }

    /** As {@link #drifted(Projection, RebuildRun, List)}, for projection {@code name}'s drift sample. */
    static List<String> drifted(Projection projection, String name, List<String> ids) throws Exception {
        if (ids.isEmpty()) {
            return ids;
        }
        if (!(projection instanceof Verifiable verifiable)) {
            throw new BadIdsException(new UnsupportedOperationException("projection " + name
                    + " does not implement Verifiable, so it cannot be verified"));
        }
        Set<String> drifted;
        try {
            drifted = verifiable.drifted(ids);
        } catch (RuntimeException e) {
            if (Transient.is(e)) {
                throw e;
            }
            throw new BadIdsException(e);
        } catch (LinkageError e) {
            throw new BadIdsException(e);
        }
        if (drifted == null) {
            throw new BadIdsException(new IllegalStateException("drifted() of " + name + " returned null"));
        }
        List<String> onPage = ids.stream().filter(drifted::contains).toList();
        if (onPage.size() < drifted.size()) {
            // most likely ids in another form than ids() gives them (case, padding): drift that would go unmarked
            LOG.log(Level.WARNING, "PRJ205: drifted() of {0} reported {1} id(s) that are not on the page it was asked about;"
                    + " ignored. It must answer with ids as ids() lists them", new Object[] {name,
                    drifted.size() - onPage.size()});
        }
        return onPage;
    }

    /**
     * A verification's read-model partition (docs/design.md D57): the read model's own ids after the cursor, so that a
     * row whose source is gone is checked too; held to the same contract as {@code ids}.
     */
    private static List<String> readModelIds(Projection projection, RebuildRun run, int pageSize) {
        if (!(projection instanceof Verifiable verifiable)) {
            throw new UnsupportedOperationException("projection " + run.projection()
                    + " does not implement Verifiable, so its read model's ids cannot be listed");
        }
        List<String> ids = verifiable.readModelIds(run.cursor(), pageSize);
        if (ids == null) {
            throw new IllegalStateException("readModelIds() of " + run.projection() + " returned null");
        }
        return ids;
    }

    private static void checked(String id, RebuildRun run) {
        if (id == null || id.isBlank() || id.length() > MarkKey.MAX_ID_LENGTH
                || id.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalStateException(lister(run) + " of " + run.projection() + " returned an invalid id after cursor "
                    + run.cursor() + ": \"" + id + "\"");
        }
    }

    private static String lister(RebuildRun run) {
        return run.walksReadModel() ? "readModelIds()" : "ids()";
    }

    /** ids() failed or broke its contract: the run fails with the projection's error. */
    static final class BadIdsException extends RuntimeException {
        BadIdsException(Throwable cause) {
            super(cause);
        }
    }
}
