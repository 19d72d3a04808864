package dev.projections.bench.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/** Runs a step on {@code threads} threads until each thread's step says it is done; times the whole. */
public final class ParallelLoop {

    /** One iteration of a worker; false when this worker is done. */
    @FunctionalInterface
    public interface Step {
        boolean next() throws Exception;
    }

    private ParallelLoop() {
    }

    /** Nanoseconds from the moment every thread may start to the moment the last one is done. */
    public static long run(int threads, String name, Step step) throws Exception {
        return run(threads, name, i -> step);
    }

    /** The same with a step of its own per thread ({@code stepOf} is given the thread's index). */
    public static long run(int threads, String name, IntFunction<Step> stepOf) throws Exception {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            Step step = stepOf.apply(i);
            Thread worker = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    while (step.next()) {
                        if (failure.get() != null) {
                            return; // another worker failed: the measurement is void, stop early
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name + "-" + i);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long took = System.nanoTime() - start;
        if (failure.get() != null) {
            throw new IllegalStateException(name + " failed: " + failure.get(), failure.get());
        }
        return took;
    }
}
