package dev.projections.demo.orders.control;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.Lock;
import jakarta.ejb.LockType;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * The demo unit's transaction-scoped EntityManager for the demo's CDI beans that the engine calls (the projections
 * and the tenant directory), produced by an EJB of the unit's module.
 * <p>
 * Why not their own {@code @PersistenceContext}: Payara resolves a persistence context injected into a CDI bean when
 * it is first used, against the module of the component calling at that moment. The engine calls projections from its
 * own ejb-jar, which does not see a unit of the demo's ejb-jar: "Unable to retrieve EntityManagerFactory for unitName
 * demo" (docs/pitfalls.md #62). Used once inside this EJB, the EntityManager knows its unit from then on, whoever
 * calls. On WildFly the result is the same EntityManager the beans had before.
 */
@Singleton
@Lock(LockType.READ)
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class DemoEntityManager {

    @PersistenceContext(unitName = "demo")
    EntityManager em;

    /** In a transaction of its own, so the EntityManager this first use opens is closed with it, on either server. */
    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    void resolveUnitHere() {
        em.getEntityManagerFactory();
    }

    @Produces
    @DemoUnit
    public EntityManager entityManager() {
        return em;
    }
}
