package dev.projections.eclipselink;

import dev.projections.Projected;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.eclipse.persistence.annotations.Multitenant;
import org.eclipse.persistence.annotations.TenantDiscriminatorColumn;

/** A multi-tenant entity whose discriminator reads a context property of the application's own, {@code shop.id}. */
@Entity
@Table(name = "shop_note")
@Multitenant
@TenantDiscriminatorColumn(name = "shop", contextProperty = ShopNote.SHOP)
@Projected("shop-notes")
public class ShopNote {

    static final String SHOP = "shop.id";

    @Id
    private Long id;

    private String text;

    protected ShopNote() {
    }

    public ShopNote(long id, String text) {
        this.id = id;
        this.text = text;
    }
}
