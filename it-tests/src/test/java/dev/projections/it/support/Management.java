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

    /** Reloads the server and waits until it runs again, its deployments restarted. */
    public static void reload() throws Exception {
        try (ModelControllerClient client = ModelControllerClient.Factory.create(HOST, PORT)) {
            client.execute(Operations.createOperation("reload"));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            Thread.sleep(500); // the management port is down while the server reloads: there is no event to wait on
            try (ModelControllerClient client = ModelControllerClient.Factory.create(HOST, PORT)) {
                ModelNode state = client.execute(Operations.createReadAttributeOperation(new ModelNode().setEmptyList(),
                        "server-state"));
                if (Operations.isSuccessfulOutcome(state) && "running".equals(Operations.readResult(state).asString())) {
                    return;
                }
            } catch (java.io.IOException | RuntimeException restarting) {
                // not answering yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the server did not run again within 120 s of its reload");
            }
        }
    }
}
