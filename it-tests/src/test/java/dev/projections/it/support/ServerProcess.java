package dev.projections.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A WildFly server this test starts and breaks itself (not Arquillian's): the provisioned server with a base
 * directory of its own under {@code target/instances/<node>}, a port offset, its own {@code jboss.node.name}
 * and an EAR in its deployment scanner's folder. {@link #kill()} sends SIGKILL to the JVM, as a crash would.
 */
public final class ServerProcess implements AutoCloseable {

    private final String node;
    private final int portOffset;
    private final Path base;
    private final Path ear;
    private final Map<String, String> properties;
    private Process process;

    public ServerProcess(String node, int portOffset, Path ear, Map<String, String> properties) {
        this.node = node;
        this.portOffset = portOffset;
        this.base = Path.of("target", "instances", node).toAbsolutePath();
        this.ear = ear;
        this.properties = properties;
        deleteTree(base); // each test's instance starts from the provisioned configuration
    }

    /** Deletes {@code dir} and everything in it, if it exists. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot clear " + dir, e);
        }
    }

    public String node() {
        return node;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + (8080 + portOffset) + path;
    }

    public Path log() {
        return base.resolve("log").resolve("server.log");
    }

    /** Whether a line of its log contains {@code text} (no log yet: no). */
    public boolean logContains(String text) {
        try (var lines = Files.lines(log())) {
            return lines.anyMatch(line -> line.contains(text));
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }

    /** Starts the server (a fresh base directory the first time, the same one after a kill) and waits for the EAR. */
    public ServerProcess start() throws IOException, InterruptedException {
        Path home = Path.of(System.getProperty("wildfly.home", "../wildfly-config/target/server")).toAbsolutePath();
        Path deployments = base.resolve("deployments");
        if (!Files.isDirectory(base.resolve("configuration"))) {
            copyTree(home.resolve("standalone").resolve("configuration"), base.resolve("configuration"));
        }
        Files.createDirectories(deployments);
        try (Stream<Path> markers = Files.list(deployments)) {
            for (Path marker : markers.filter(p -> !p.toString().endsWith(".ear")).toList()) {
                Files.delete(marker);
            }
        }
        Path deployed = deployments.resolve(ear.getFileName());
        Files.copy(ear, deployed, StandardCopyOption.REPLACE_EXISTING);
        List<String> command = new ArrayList<>(List.of(home.resolve("bin").resolve("standalone.sh").toString(),
                "-Djboss.server.base.dir=" + base, "-Djboss.socket.binding.port-offset=" + portOffset,
                "-Djboss.node.name=" + node, "-Djava.net.preferIPv4Stack=true"));
        properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("console.log").toFile()));
        builder.environment().remove("JBOSS_HOME");
        builder.environment().put("JAVA_OPTS", "-Xms256m -Xmx768m");
        process = builder.start();
        Path ok = deployments.resolve(ear.getFileName() + ".deployed");
        Path failed = deployments.resolve(ear.getFileName() + ".failed");
        Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
        while (!Files.exists(ok)) {
            if (Files.exists(failed)) {
                throw new IllegalStateException(node + ": the EAR failed to deploy: " + Files.readString(failed));
            }
            if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(node + " did not start; see " + base.resolve("console.log"));
            }
            Thread.sleep(200);
        }
        return this;
    }

    /** SIGKILL to the server's JVM and its launcher script: no shutdown hook, no undeploy, no rollback sent. */
    public void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        killTree(process);
        process = null;
    }

    /**
     * Stops the server as an operator's {@code kill} (SIGTERM) does: its JVM shuts down gracefully, undeploying
     * everything. Returns once it ended, SIGKILL after {@code patience}.
     */
    public void stop(Duration patience) throws InterruptedException {
        if (process == null) {
            return;
        }
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.forEach(ProcessHandle::destroy);
        for (ProcessHandle child : tree) {
            try {
                child.onExit().get(patience.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                break; // the SIGKILL below
            }
        }
        killTree(process);
        process = null;
    }

    /** SIGKILL to {@code process} and everything it started (a launcher script and its JVM); returns once all ended. */
    public static void killTree(Process process) throws InterruptedException {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor();
        for (ProcessHandle child : tree) {
            child.onExit().join();
        }
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /** Copies the directory {@code from} with everything in it to {@code to}. */
    public static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : paths.sorted(Comparator.naturalOrder()).toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
