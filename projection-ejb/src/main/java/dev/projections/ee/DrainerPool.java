package dev.projections.ee;

import dev.projections.engine.Foundation;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The drainers' own threads (docs/design.md, "Threads of their own"): {@code projection.workers} threads from the
 * container's default {@link ManagedThreadFactory}, started with the deployment and used by nothing else. Drainers
 * used to be {@code @Asynchronous} EJB calls, sharing the server's one EJB thread pool with the application's
 * asynchronous methods and timers: a burst of either starved the other. The hand-off never has more than
 * {@code workers} drainers in flight, so a drainer never waits here for a thread.
 *
 * <p>The threads are started at once, in this singleton's start-up, so they carry its context (class loader,
 * naming) rather than that of whichever business thread happened to commit first.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration") // invalid settings fail the deployment there first
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class DrainerPool {

    private static final Logger LOG = Logger.getLogger(DrainerPool.class.getName());
    private static final long STOP_WAIT_SECONDS = 10;

    @Resource
    ManagedThreadFactory threads;

    @Inject
    Foundation foundation;

    private ThreadPoolExecutor pool;

    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // on the method too: Payara ignores the class's for lifecycle callbacks (docs/pitfalls.md #61)
    void start() {
        int workers = foundation.settings().workers();
        pool = new ThreadPoolExecutor(workers, workers, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                runnable -> {
                    Thread thread = threads.newThread(runnable);
                    thread.setName("projection-drainer-" + thread.getId());
                    return thread;
                });
        pool.prestartAllCoreThreads();
    }

    /**
     * The drainers' threads, for the engine to start drainers on without a call through this bean's proxy: a committing
     * thread starts one after its commit, and an EJB call there (interceptors, the finished transaction suspended and
     * resumed) is time the business request waits for. Throws {@link RejectedExecutionException} once stopped.
     */
    public Executor executor() {
        return pool;
    }

    /** Threads of the pool now running a drainer (tests and the overview read it). */
    public int busy() {
        return pool.getActiveCount();
    }

    /**
     * At undeploy, after the sweep stopped the engine (it depends on this bean, so it is destroyed first): running
     * drainers end after their current refresh, unstarted claims are released by them.
     */
    @PreDestroy
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // on the method too: Payara ignores the class's for lifecycle callbacks (docs/pitfalls.md #61)
    void stop() {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warning("PRJ405: projection drainers still running " + STOP_WAIT_SECONDS + " s after the engine stopped;"
                        + " interrupting them (their marks stay pending until their lease lapses)");
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pool.shutdownNow();
        }
    }
}
