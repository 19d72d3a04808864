package org.example.shelf;

import dev.projections.Projection;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The "shelf-counts" projection. Its work is done by an EJB of the unit's module ({@link ShelfCounts}): Payara resolves
 * a bean's {@code @PersistenceContext} in the module of the caller, here the engine's, where unit "shelf" is unknown
 * (docs/pitfalls.md #62).
 */
@ApplicationScoped
public class ShelfCountsProjection implements Projection {

    @EJB
    ShelfCounts counts;

    @Override
    public String name() {
        return "shelf-counts";
    }

    @Override
    public void refresh(String shelf) {
        counts.refresh(shelf);
    }

    @Override
    public List<String> ids(String after, int limit) {
        return counts.shelves(after, limit);
    }
}
