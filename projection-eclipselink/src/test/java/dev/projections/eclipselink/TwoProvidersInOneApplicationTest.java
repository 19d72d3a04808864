package dev.projections.eclipselink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.marking.MarkSinks;
import dev.projections.marking.ProjectedUnits;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import org.junit.jupiter.api.Test;

/**
 * One application, two persistence units on one database, one on Hibernate ORM and one on EclipseLink: both
 * integrations run side by side, each unit is known to the engine, and each unit's changes are marked (issue 49's
 * "two units on different providers": supported).
 */
class TwoProvidersInOneApplicationTest {

    @Test
    void unitsOnHibernateAndOnEclipseLinkAreBothMarked() throws Exception {
        RecordingSink sink = new RecordingSink();
        MarkSinks.install(sink);
        MarkingDatabase h2 = MarkingDatabase.h2("two_providers");
        int before = ProjectedUnits.units().size();
        EntityManagerFactory hibernate = Persistence.createEntityManagerFactory("marking-hibernate", h2.unitProperties());
        EntityManagerFactory eclipseLink = Persistence.createEntityManagerFactory("marking-eclipselink",
                h2.unitProperties());
        try {
            eclipseLink.createEntityManager().close(); // EclipseLink starts (and makes its tables) at its first one
            assertThat(ProjectedUnits.units()).as("both units known to the engine").hasSize(before + 2);

            MarkingContract.inTransaction(hibernate, em -> {
                em.persist(new MarkedCustomer(1, "on Hibernate"));
                em.persist(new MarkedOrder(10, "north", em.find(MarkedCustomer.class, 1L)));
            });
            MarkingContract.inTransaction(eclipseLink, em -> {
                em.persist(new MarkedCustomer(2, "on EclipseLink"));
                em.persist(new MarkedOrder(20, "south", em.find(MarkedCustomer.class, 2L)));
            });

            assertThat(MarkingContract.pending(h2)).containsExactly(MarkingContract.key("customer-stats", "1"), MarkingContract.key("customer-stats", "2"),
                    MarkingContract.key("order-search", "10"), MarkingContract.key("order-search", "20"), MarkingContract.key("region-stats", "north"),
                    MarkingContract.key("region-stats", "south"));
            assertThat(sink.writes).as("one write per transaction, whichever the provider").hasSize(2);
            assertThat(sink.handedOver).hasSize(2);
        } finally {
            hibernate.close();
            eclipseLink.close();
            MarkSinks.install(null);
        }
        assertThat(ProjectedUnits.units()).hasSize(before);
    }
}
