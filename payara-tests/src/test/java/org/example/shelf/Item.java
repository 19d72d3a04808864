package org.example.shelf;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The write model: an item on a shelf. Its shelf is the key of the "shelf-counts" read model. */
@Entity
@Table(name = "shelf_item")
@Projected(value = "shelf-counts", id = "shelf")
public class Item {

    @Id
    private Long id;

    private String shelf;

    private String name;

    protected Item() {
    }

    public Item(long id, String shelf, String name) {
        this.id = id;
        this.shelf = shelf;
        this.name = name;
    }

    public void moveTo(String shelf) {
        this.shelf = shelf;
    }
}
