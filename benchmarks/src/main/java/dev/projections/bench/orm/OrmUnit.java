package dev.projections.bench.orm;

import com.zaxxer.hikari.HikariDataSource;
import dev.projections.bench.db.BenchDatabase;
import dev.projections.bench.db.StatementCounting;
import dev.projections.bench.orm.marked.MarkedOrder;
import dev.projections.bench.orm.marked.MarkedOrderLine;
import dev.projections.bench.orm.plain.PlainOrder;
import dev.projections.bench.orm.plain.PlainOrderLine;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.cfg.Configuration;

/**
 * A resource-local persistence unit in Java SE on a pool of its own, with every statement counted. Two units map the
 * same tables: {@link #marked} with {@code @Projected} entities (so projection-core's integrator, found through
 * {@code META-INF/services}, hooks marking in) and {@link #plain} without (so it stays out).
 */
public final class OrmUnit implements AutoCloseable {

    /** The business transactions are single-threaded; one spare connection. */
    private static final int POOL_SIZE = 2;

    private final String name;
    private final HikariDataSource pool;
    private final SessionFactory sessions;
    private final LongAdder statements;
    private final Class<? extends LineColumns> lineType;
    private final Supplier<OrderColumns> newOrder;

    private OrmUnit(String name, HikariDataSource pool, SessionFactory sessions, LongAdder statements,
                    Class<? extends LineColumns> lineType, Supplier<OrderColumns> newOrder) {
        this.name = name;
        this.pool = pool;
        this.sessions = sessions;
        this.statements = statements;
        this.lineType = lineType;
        this.newOrder = newOrder;
    }

    public static OrmUnit marked(BenchDatabase database) {
        return build("marked", database, MarkedOrder.class, MarkedOrderLine.class,
                () -> new MarkedOrder("customer-new", "NEW", Instant.now()));
    }

    public static OrmUnit plain(BenchDatabase database) {
        return build("plain", database, PlainOrder.class, PlainOrderLine.class,
                () -> new PlainOrder("customer-new", "NEW", Instant.now()));
    }

    private static OrmUnit build(String name, BenchDatabase database, Class<? extends OrderColumns> orderType,
                                 Class<? extends LineColumns> lineType, Supplier<OrderColumns> newOrder) {
        HikariDataSource pool = database.pool("orm-" + name, POOL_SIZE);
        LongAdder statements = new LongAdder();
        Configuration configuration = new Configuration()
                .addAnnotatedClass(orderType)
                .addAnnotatedClass(lineType);
        configuration.getProperties().put(AvailableSettings.DATASOURCE, StatementCounting.wrap(pool, statements));
        // the pool hands out connections with auto-commit off: Hibernate need not switch it per transaction
        configuration.setProperty(AvailableSettings.CONNECTION_PROVIDER_DISABLES_AUTOCOMMIT, "true");
        configuration.setProperty(AvailableSettings.HBM2DDL_AUTO, "none");
        configuration.setProperty(AvailableSettings.PERSISTENCE_UNIT_NAME, name);
        SessionFactory sessions = configuration.buildSessionFactory();
        return new OrmUnit(name, pool, sessions, statements, lineType, newOrder);
    }

    public String name() {
        return name;
    }

    public EntityManagerFactory entityManagers() {
        return sessions;
    }

    /** Statements executed through this unit's connections so far, the marks' upsert included. */
    public long statements() {
        return statements.sum();
    }

    /** A new order with three lines, persisted in {@code em}'s transaction; returns its id. */
    public long createOrder(EntityManager em, int seed) {
        OrderColumns order = newOrder.get();
        for (int k = 1; k <= 3; k++) {
            order.addLine("sku-" + ((seed * 7 + k) % 500), 1 + (seed + k) % 5,
                    BigDecimal.valueOf(100 + (seed * 13L + k * 7L) % 10_000, 2));
        }
        em.persist(order);
        return order.getId(); // assigned from the sequence at persist; the inserts wait for the commit's flush
    }

    /** Adds one to a line's quantity, loading only the line (its order stays a proxy). */
    public void bumpQuantity(EntityManager em, long lineId) {
        LineColumns line = em.find(lineType, lineId);
        if (line == null) {
            throw new IllegalStateException("no order line " + lineId);
        }
        line.setQuantity(line.getQuantity() + 1);
    }

    @Override
    public void close() {
        try {
            sessions.close();
        } finally {
            pool.close();
        }
    }
}
