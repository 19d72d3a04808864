package dev.projections.it.tenancy;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** An entity of a multi-tenant persistence unit ({@code notes}): Hibernate keeps each tenant's rows apart. */
@Entity
@Table(name = "tenancy_note")
@Projected(NotesProjection.NAME)
public class Note {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE)
    private Long id;

    @TenantId
    private String tenant;

    private String text;

    protected Note() {
    }

    public Note(String text) {
        this.text = text;
    }

    public Long getId() {
        return id;
    }

    public String getTenant() {
        return tenant;
    }
}
