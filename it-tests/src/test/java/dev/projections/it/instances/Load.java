package dev.projections.it.instances;

import dev.projections.it.support.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Business transactions against the demo API of the given servers, from a few client threads, over a few hundred
 * keys in two tenants: new orders and status changes (order-search, customer-stats) and probe touches. A request
 * that fails (its server killed, its database gone) changed nothing and is not counted.
 */
final class Load implements AutoCloseable {

    static final List<String> TENANTS = List.of("tenant-a", "tenant-b");
    static final int PROBE_KEYS = 150;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private final List<ServerProcess> targets = new CopyOnWriteArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong changes = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final List<CompletableFuture<Void>> clients = new ArrayList<>();

    Load(List<ServerProcess> servers, int threads) {
        targets.addAll(servers);
        for (int t = 0; t < threads; t++) {
            Random random = new Random(t);
            clients.add(CompletableFuture.runAsync(() -> {
                while (running.get()) {
                    step(random);
                }
            }));
        }
    }

    /** From now on only these servers get requests. */
    void only(ServerProcess... servers) {
        targets.retainAll(List.of(servers));
    }

    private void step(Random random) {
        List<ServerProcess> now = List.copyOf(targets);
        if (now.isEmpty()) {
            return;
        }
        ServerProcess server = now.get(random.nextInt(now.size()));
        String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
        boolean probe = random.nextBoolean();
        String path;
        int changed;
        if (probe) {
            String ids = IntStream.range(0, 4).mapToObj(i -> "k" + random.nextInt(PROBE_KEYS))
                    .distinct().collect(Collectors.joining(","));
            path = "/demo/api/probe/" + ids;
            changed = (int) ids.chars().filter(c -> c == ',').count() + 1;
        } else {
            path = "/demo/api/load?orders=2&updates=2";
            changed = 4;
        }
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(server.url(path)))
                    .header("X-Tenant", tenant).timeout(Duration.ofSeconds(20))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                committed.incrementAndGet();
                changes.addAndGet(changed);
            } else {
                refused.incrementAndGet();
                pause();
            }
        } catch (Exception serverGone) {
            refused.incrementAndGet();
            pause();
        }
    }

    /** After a refused request: a client that retries, not one that hammers. */
    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    long committed() {
        return committed.get();
    }

    /** Entities changed by committed requests (orders created or updated, probe keys touched). */
    long changes() {
        return changes.get();
    }

    long refused() {
        return refused.get();
    }

    @Override
    public void close() {
        running.set(false);
        clients.forEach(CompletableFuture::join);
    }
}
