package org.example.library;

import dev.projections.Projection;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/** Keeps "Title — Author" per book; called by the engine in a transaction of its own, after the change committed. */
@ApplicationScoped
public class BookTitlesProjection implements Projection {

    @EJB
    BookTitles titles;

    @Override
    public String name() {
        return "book-titles";
    }

    @Override
    public void refresh(String id) {
        titles.refresh(Long.parseLong(id));
    }

    @Override
    public List<String> ids(String after, int limit) {
        return titles.ids(after == null ? Long.MIN_VALUE : Long.parseLong(after), limit).stream()
                .map(String::valueOf).toList();
    }
}
