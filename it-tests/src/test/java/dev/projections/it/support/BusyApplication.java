package dev.projections.it.support;

import jakarta.ejb.Asynchronous;
import jakarta.ejb.Stateless;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The application's own asynchronous work: each call holds a thread of the server's EJB pool until released. */
@Stateless
public class BusyApplication {

    @Asynchronous
    public void occupy(AtomicInteger running, CountDownLatch release) {
        running.incrementAndGet();
        try {
            release.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
