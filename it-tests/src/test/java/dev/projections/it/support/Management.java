package dev.projections.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.jboss.as.controller.client.ModelControllerClient;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;

/** The test server through its management port (the managed container's default, 9990 on localhost). */
public final class Management {

    private static final String HOST = "127.0.0.1";
    private static final int PORT = 9990;

    private Management() {
    }

    /** Runs {@code operation}; fails the test with the server's answer unless it succeeded. */
    public static void execute(ModelNode operation) throws Exception {
        ModelNode result;
        try (ModelControllerClient client = ModelControllerClient.Factory.create(HOST, PORT)) {
            result = client.execute(operation);
        }
        assertThat(Operations.isSuccessfulOutcome(result)).as(result.toString()).isTrue();
    }

    /**
     * Reloads the server and waits until it runs again, its deployments restarted. The reload's answer may come
     * before the server begins to stop, or not at all (the connection closes under it), so this waits first to see
     * the server leave "running", then to see it back.
     */
    public static void reload() throws Exception {
        try (ModelControllerClient client = ModelControllerClient.Factory.create(HOST, PORT)) {
            client.execute(Operations.createOperation("reload"));
        } catch (java.io.IOException closedUnderIt) {
            // the server began its reload before it answered
        }
        awaitState(state -> !"running".equals(state), 30, "leave running after its reload");
        awaitState("running"::equals, 120, "run again after its reload");
    }

    /** Polls the server's state until {@code expected} holds; a server not answering has state {@code null}. */
    private static void awaitState(java.util.function.Predicate<String> expected, int seconds, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!expected.test(state())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the server did not " + what + " within " + seconds + " s");
            }
            Thread.sleep(50); // the management port answers or not: there is no event to wait on
        }
    }

    private static String state() {
        try (ModelControllerClient client = ModelControllerClient.Factory.create(HOST, PORT)) {
            ModelNode state = client.execute(Operations.createReadAttributeOperation(new ModelNode().setEmptyList(),
                    "server-state"));
            return Operations.isSuccessfulOutcome(state) ? Operations.readResult(state).asString() : null;
        } catch (java.io.IOException | RuntimeException down) {
            return null;
        }
    }
}
