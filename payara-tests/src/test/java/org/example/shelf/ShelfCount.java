package org.example.shelf;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The read model: how many items a shelf holds. */
@Entity
@Table(name = "shelf_count")
public class ShelfCount {

    @Id
    private String shelf;

    private long items;

    protected ShelfCount() {
    }

    public ShelfCount(String shelf, long items) {
        this.shelf = shelf;
        this.items = items;
    }

    public long items() {
        return items;
    }
}
