package dev.projections.it.install;

import dev.projections.it.support.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * An unmodified WildFly distribution, unpacked by the build, configured only through its own {@code jboss-cli}
 * the way docs/install.md tells a user to. Each start gets a fresh copy of the distribution's {@code standalone}
 * directory as its base directory, so a rerun starts from the pristine configuration. Port offset 300: it can
 * run beside the Arquillian-managed server; plus {@code projection.it.port-offset} for a pass that runs beside the
 * main one (CI's Jakarta EE 11 pass on WildFly Preview).
 */
final class StockServer implements AutoCloseable {

    static final int PORT_OFFSET = 300 + Integer.parseInt(System.getProperty("projection.it.port-offset", "0").strip());

    private final Path home;
    private final Path base;
    private Process process;

    StockServer(Path home, Path base) {
        this.home = home.toAbsolutePath();
        this.base = base.toAbsolutePath();
    }

    String url(String path) {
        return "http://127.0.0.1:" + (8080 + PORT_OFFSET) + path;
    }

    StockServer start() throws IOException, InterruptedException {
        if (!Files.isExecutable(home.resolve("bin/standalone.sh"))) {
            throw new IllegalStateException("no WildFly distribution at " + home + ": run the build (mvn verify)");
        }
        ServerProcess.deleteTree(base);
        ServerProcess.copyTree(home.resolve("standalone"), base);
        List<String> command = List.of(home.resolve("bin/standalone.sh").toString(),
                "-Djboss.server.base.dir=" + base, "-Djboss.socket.binding.port-offset=" + PORT_OFFSET,
                "-Djava.net.preferIPv4Stack=true");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("console.log").toFile()));
        builder.environment().put("JBOSS_HOME", home.toString());
        builder.environment().put("JAVA_OPTS", "-Xms256m -Xmx768m");
        process = builder.start();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
        while (true) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create(url("/"))).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return this;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the stock WildFly did not start; see " + base.resolve("console.log"));
            }
            Thread.sleep(250);
        }
    }

    /** Runs a CLI script against the running server with {@code properties} for its {@code ${…}}; fails on any error. */
    String cli(Path script, Properties properties) throws IOException, InterruptedException {
        Path file = Files.createTempFile(base, "cli", ".properties");
        try (var out = Files.newOutputStream(file)) {
            properties.store(out, null);
        }
        return run(List.of("--resolve-parameter-values", "--properties=" + file, "--file=" + script.toAbsolutePath()));
    }

    /** A URL of the management interface (where MicroProfile Health answers). */
    String managementUrl(String path) {
        return "http://127.0.0.1:" + (9990 + PORT_OFFSET) + path;
    }

    String cliCommand(String command) throws IOException, InterruptedException {
        return run(List.of("--command=" + command));
    }

    private String run(List<String> arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/jboss-cli.sh").toString(), "-c",
                "--controller=127.0.0.1:" + (9990 + PORT_OFFSET), "--timeout=120000"));
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("JBOSS_HOME", home.toString());
        Process cli = builder.start();
        String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (cli.waitFor() != 0 || output.contains("\"outcome\" => \"failed\"")) {
            throw new IllegalStateException("jboss-cli " + arguments + " failed:\n" + output);
        }
        return output;
    }

    @Override
    public void close() throws InterruptedException {
        if (process == null) {
            return;
        }
        ServerProcess.killTree(process);
        process = null;
    }
}
