package dev.projections;

import java.util.List;
import java.util.Set;

/**
 * A {@link Projection} that can say where its read model has drifted from the write model: rows a refresh would now
 * write differently, because something changed them or their sources without a mark (a bulk update that bypassed
 * marking, a hand edit, a table restored from an older backup, a projection bug fixed since). Implemented beside
 * {@code Projection} by a projection that offers verification; the engine re-marks what it reports, and the ordinary
 * refresh repairs it (docs/design.md D57).
 *
 * <p>Both methods are called inside the tenant scope of the ids, in a transaction the engine demarcates, and must only
 * read.
 */
public interface Verifiable {

    /**
     * Of {@code ids} (one tenant's, at most a rebuild page of them), those whose read-model row differs from what
     * {@link Projection#refresh} would write now: a row missing for a source that exists, a row left for a source that
     * is gone, a value that differs. Set-based where it can be, as {@link Projection#refreshAll} is: one statement
     * comparing the rows with what the refresh's query would produce serves a whole page.
     */
    Set<String> drifted(List<String> ids) throws Exception;

    /**
     * The read model's own ids, for rows whose source is gone: at most {@code limit} ids strictly after {@code after}
     * ({@code null}: from the start), ascending in the order {@link Projection#ids(String, int)} uses. A verification
     * walks these pages as well as the write model's, so that a row left for a deleted source is checked too. The
     * default lists none: such a row is then found only when its id is checked for another reason.
     */
    default List<String> readModelIds(String after, int limit) {
        return List.of();
    }
}
