package dev.projections.eclipselink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.projections.MarkKey;
import dev.projections.marking.MarkSinks;
import dev.projections.marking.ProjectedUnits;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The marking contract (docs/contract.md §3), the same for every JPA provider: each subclass names the persistence unit
 * of one provider, and every test runs on H2, PostgreSQL and (where one is set) MariaDB, with resource-local
 * transactions and the store's real upsert. What a JTA transaction adds (explicit marks joining, the hand-off after the
 * commit) is the servers' integration tests'.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MarkingContract {

    private final RecordingSink sink = new RecordingSink();
    private final Map<MarkingDatabase, EntityManagerFactory> factories = new HashMap<>();
    private List<MarkingDatabase> databases;

    /** The persistence unit of the provider under test (test resources' persistence.xml). */
    abstract String unit();

    /** The unit whose entity declares a key path that names no attribute. */
    abstract String badKeyPathUnit();

    @BeforeAll
    void prepare() {
        MarkSinks.install(sink);
        databases = MarkingDatabase.all(unit().replace('-', '_'));
    }

    @AfterAll
    void close() {
        factories.values().forEach(EntityManagerFactory::close);
        MarkSinks.install(null);
    }

    Stream<MarkingDatabase> databases() {
        return databases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void anInsertMarksTheEntityItselfAndTheKeyOfEachPath(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> em.persist(new MarkedCustomer(1, "Ada")));
        start(database);

        inTransaction(database, em -> em.persist(new MarkedOrder(10, "north", em.find(MarkedCustomer.class, 1L))));

        Set<MarkKey> expected = Set.of(key("customer-stats", "1"), key("order-search", "10"),
                key("region-stats", "north"));
        assertThat(pending(database)).containsExactlyElementsOf(sorted(expected));
        assertThat(sink.writes).as("one key-ordered write per transaction").containsExactly(sorted(expected));
        assertThat(sink.handedOver).as("handed to the drainers after the commit").containsExactly(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void anUpdateThatMovesAKeyMarksTheOldKeyAndTheNewOne(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> {
            em.persist(new MarkedCustomer(2, "Bea"));
            em.persist(new MarkedCustomer(3, "Cyd"));
            em.persist(new MarkedOrder(20, "east", em.find(MarkedCustomer.class, 2L)));
        });
        start(database);

        inTransaction(database, em -> {
            MarkedOrder order = em.find(MarkedOrder.class, 20L);
            order.customer(em.find(MarkedCustomer.class, 3L));
            order.region("west");
        });

        assertThat(pending(database)).containsExactly(key("customer-stats", "2"), key("customer-stats", "3"),
                key("order-search", "20"), key("region-stats", "east"), key("region-stats", "west"));
        assertThat(sink.writes).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void anUpdateThatMovesNoKeyMarksThePresentKeys(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> {
            em.persist(new MarkedCustomer(4, "Dee"));
            em.persist(new MarkedOrder(40, "south", em.find(MarkedCustomer.class, 4L)));
        });
        start(database);

        inTransaction(database, em -> em.find(MarkedOrder.class, 40L).total(99));

        assertThat(pending(database)).containsExactly(key("customer-stats", "4"), key("order-search", "40"),
                key("region-stats", "south"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aDeleteMarksTheKeysOfTheDeletedState(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> {
            em.persist(new MarkedCustomer(5, "Eve"));
            em.persist(new MarkedOrder(50, "north", em.find(MarkedCustomer.class, 5L)));
        });
        start(database);

        inTransaction(database, em -> em.remove(em.find(MarkedOrder.class, 50L)));

        assertThat(pending(database)).containsExactly(key("customer-stats", "5"), key("order-search", "50"),
                key("region-stats", "north"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aChangeOfAnOwnedCollectionMarksItsOwner(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> {
            em.persist(new MarkedCustomer(6, "Fay"));
            em.persist(new MarkedOrder(60, "east", em.find(MarkedCustomer.class, 6L)));
        });
        start(database);

        inTransaction(database, em -> em.find(MarkedOrder.class, 60L).tags().add("gift"));

        assertThat(pending(database)).contains(key("order-search", "60"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aRollbackLeavesNoMarkAndHandsNothingOver(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> em.persist(new MarkedCustomer(7, "Gil")));
        start(database);

        EntityManager em = factory(database).createEntityManager();
        try {
            em.getTransaction().begin();
            em.persist(new MarkedOrder(70, "west", em.find(MarkedCustomer.class, 7L)));
            em.flush();
            em.getTransaction().rollback();
        } finally {
            em.close();
        }

        assertThat(pending(database)).isEmpty();
        assertThat(sink.writes).isEmpty();
        assertThat(sink.handedOver).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void marksOfEveryFlushAreWrittenOnceAtTheCommitInKeyOrder(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> em.persist(new MarkedCustomer(8, "Hal")));
        start(database);

        EntityManager em = factory(database).createEntityManager();
        try {
            em.getTransaction().begin();
            em.persist(new MarkedOrder(81, "south", em.find(MarkedCustomer.class, 8L)));
            em.flush();
            em.persist(new MarkedOrder(80, "east", em.find(MarkedCustomer.class, 8L)));
            em.flush();
            assertThat(sink.writes).as("nothing written at a flush").isEmpty();
            em.getTransaction().commit();
        } finally {
            em.close();
        }

        List<MarkKey> expected = List.of(key("customer-stats", "8"), key("order-search", "80"),
                key("order-search", "81"), key("region-stats", "east"), key("region-stats", "south"));
        assertThat(sink.writes).containsExactly(expected);
        assertThat(pending(database)).containsExactlyElementsOf(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aChangeOfAnEntityNoProjectionDeclaresMarksNothing(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> em.persist(new MarkedCustomer(9, "Ida")));
        start(database);

        inTransaction(database, em -> em.find(MarkedCustomer.class, 9L).name("Ida B."));

        assertThat(pending(database)).isEmpty();
        assertThat(sink.writes).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aMarkCarriesTheApplicationsTenant(MarkingDatabase database) throws Exception {
        inTransaction(database, em -> em.persist(new MarkedCustomer(11, "Jo")));
        start(database);
        sink.tenant = "acme";
        try {
            inTransaction(database, em -> em.persist(new MarkedOrder(110, "north", em.find(MarkedCustomer.class, 11L))));
        } finally {
            sink.tenant = "";
        }

        assertThat(pending(database)).containsExactly(new MarkKey("customer-stats", "acme", "11"),
                new MarkKey("order-search", "acme", "110"), new MarkKey("region-stats", "acme", "north"));
    }

    @Test
    void aKeyPathThatNamesNoAttributeFailsThePersistenceUnitNamingEntityAndPath() {
        MarkingDatabase h2 = databases.get(0);
        assertThatThrownBy(() -> {
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(badKeyPathUnit(), h2.unitProperties());
            try {
                factory.createEntityManager().close();
            } finally {
                factory.close();
            }
        }).satisfies(failure -> assertThat(causes(failure))
                .anySatisfy(message -> assertThat(message).contains("BadKeyPathOrder").contains("\"customerr\"")
                        .contains("it names no attribute of the entity")));
    }

    @Test
    void aStartedUnitIsKnownToTheEngineUntilItCloses() {
        int before = ProjectedUnits.units().size();
        // a database of its own: EclipseLink shares one session between factories of the same unit and connection
        Map<String, Object> properties = new HashMap<>(databases.get(0).unitProperties());
        properties.put("jakarta.persistence.jdbc.url", "jdbc:h2:mem:marking_registry_" + unit().replace('-', '_'));
        EntityManagerFactory factory = Persistence.createEntityManagerFactory(unit(), properties);
        try {
            factory.createEntityManager().close(); // EclipseLink logs in at the first one
            assertThat(ProjectedUnits.units()).as("registered when it started").hasSize(before + 1);
            assertThat(ProjectedUnits.multiTenant()).isFalse();
        } finally {
            factory.close();
        }
        assertThat(ProjectedUnits.units()).as("removed when it closed").hasSize(before);
    }

    private static List<String> causes(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }

    /** Empties the pending table and forgets what the sink saw: what follows is the test's own transaction. */
    private void start(MarkingDatabase database) throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM projection_pending");
        }
        sink.clear();
    }

    private void inTransaction(MarkingDatabase database, Consumer<EntityManager> work) {
        inTransaction(factory(database), work);
    }

    /** {@code work} in a resource-local transaction of its own, committed; rolled back if it throws. */
    static void inTransaction(EntityManagerFactory factory, Consumer<EntityManager> work) {
        inTransaction(factory, Map.of(), work);
    }

    /** The same in a persistence context given {@code properties} (a tenant's, say). */
    static void inTransaction(EntityManagerFactory factory, Map<String, Object> properties, Consumer<EntityManager> work) {
        EntityManager em = factory.createEntityManager(properties);
        try {
            em.getTransaction().begin();
            work.accept(em);
            em.getTransaction().commit();
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    private EntityManagerFactory factory(MarkingDatabase database) {
        return factories.computeIfAbsent(database,
                d -> Persistence.createEntityManagerFactory(unit(), d.unitProperties()));
    }

    /** The pending table's keys, in key order. */
    static List<MarkKey> pending(MarkingDatabase database) throws Exception {
        List<MarkKey> keys = new ArrayList<>();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT projection, tenant_id, entity_id FROM projection_pending ORDER BY projection, tenant_id, entity_id")) {
            while (rows.next()) {
                keys.add(new MarkKey(rows.getString(1), rows.getString(2), rows.getString(3)));
            }
        }
        return keys;
    }

    static MarkKey key(String projection, String id) {
        return new MarkKey(projection, "", id);
    }

    private static List<MarkKey> sorted(Set<MarkKey> keys) {
        return keys.stream().sorted().toList();
    }
}
