package dev.projections.eclipselink;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.eclipse.persistence.annotations.Multitenant;
import org.eclipse.persistence.annotations.TenantDiscriminatorColumn;

/** A multi-tenant entity on EclipseLink's default context property, {@code eclipselink.tenant-id}. */
@Entity
@Table(name = "tenant_note")
@Multitenant
@TenantDiscriminatorColumn(name = "tenant")
@Projected("tenant-notes")
public class TenantNote {

    @Id
    private Long id;

    private String text;

    protected TenantNote() {
    }

    public TenantNote(long id, String text) {
        this.id = id;
        this.text = text;
    }
}
