package dev.projections.console;

import dev.projections.ee.admin.ConsoleReads;
import jakarta.inject.Inject;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;
import java.time.Instant;
import java.util.List;

/**
 * Find a mark by entity id across projections and tenants (docs/contract.md §12): a GET page
 * ({@code find.xhtml?id=42}), so a search can be bookmarked or shared, reached from the box on every page.
 */
@Named("projectionsFind")
@RequestScoped
public class FindPage {

    @Inject
    ConsoleReads reads;

    @Inject
    ConsoleClock clock;

    private String id = "";
    private List<MarkLine> lines;

    public String getId() {
        return id;
    }

    public void setId(String id) {
        // as typed, but for an all-blank box: ids differing by a trailing space are different keys
        this.id = id == null || id.isBlank() ? "" : id;
    }

    public boolean isSearched() {
        return !id.isEmpty();
    }

    public List<MarkLine> getLines() {
        if (lines == null) {
            Instant now = clock.now();
            lines = id.isEmpty() ? List.of() : reads.findById(id).stream().map(row -> new MarkLine(row, now)).toList();
        }
        return lines;
    }

    public String getLimitNote() {
        return getLines().size() >= ConsoleReads.FOUND_LINES ? Text.of("find.limit", ConsoleReads.FOUND_LINES) : "";
    }
}
