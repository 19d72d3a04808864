package dev.projections.it.install;

import dev.projections.it.support.ServerProcess;
import dev.projections.testsupport.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
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
    private final Path bootableJar;
    private final Path base;
    private final String readyPath;
    private final List<String> systemProperties = new ArrayList<>();
    private Process process;

    StockServer(Path home, Path base) {
        this(home, base, "/");
    }

    /** A server that is ready when {@code readyPath} answers 200 (a provisioned server may have no welcome page). */
    StockServer(Path home, Path base, String readyPath) {
        this(home, null, base, readyPath);
    }

    private StockServer(Path home, Path bootableJar, Path base, String readyPath) {
        this.home = home == null ? null : home.toAbsolutePath();
        this.bootableJar = bootableJar == null ? null : bootableJar.toAbsolutePath();
        this.base = base.toAbsolutePath();
        this.readyPath = readyPath;
    }

    /**
     * A WildFly bootable JAR, started with {@code java -jar} (it unpacks itself into a directory of its own); its
     * console log goes to {@code base}. No CLI against it: {@link #cli} needs a distribution's home.
     */
    static StockServer bootableJar(Path jar, Path base, String readyPath) {
        return new StockServer(null, jar, base, readyPath);
    }

    /**
     * Starts the server on a fresh database named {@code name} of the test's PostgreSQL, given as the system properties
     * the {@code projections-postgresql} layer's datasources read.
     */
    StockServer onFreshDatabase(TestDatabase db, String name) throws SQLException {
        return with("projection.db.url", freshDatabase(db, name)).with("projection.db.user", db.user())
                // WildFly takes no empty password; trust authentication ignores it (docs/pitfalls.md #116)
                .with("projection.db.password", db.password().isEmpty() ? "unused" : db.password());
    }

    /** Starts the server with this system property too. */
    StockServer with(String key, String value) {
        systemProperties.add("-D" + key + "=" + value);
        return this;
    }

    String url(String path) {
        return "http://127.0.0.1:" + (8080 + PORT_OFFSET) + path;
    }

    StockServer start() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (bootableJar != null) {
            if (!Files.isRegularFile(bootableJar)) {
                throw new IllegalStateException("no bootable JAR at " + bootableJar + ": run the build (mvn verify)");
            }
            ServerProcess.deleteTree(base);
            Files.createDirectories(base);
            // it unpacks the server under the JVM's temporary directory: here, so a killed run leaves nothing in /tmp
            command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xms256m",
                    "-Xmx768m", "-Djava.io.tmpdir=" + base, "-jar", bootableJar.toString()));
        } else {
            if (!Files.isExecutable(home.resolve("bin/standalone.sh"))) {
                throw new IllegalStateException("no WildFly distribution at " + home + ": run the build (mvn verify)");
            }
            ServerProcess.deleteTree(base);
            ServerProcess.copyTree(home.resolve("standalone"), base);
            command.addAll(List.of(home.resolve("bin/standalone.sh").toString(), "-Djboss.server.base.dir=" + base));
        }
        command.addAll(List.of("-Djboss.socket.binding.port-offset=" + PORT_OFFSET, "-Djava.net.preferIPv4Stack=true"));
        command.addAll(systemProperties);
        // in its base directory: a provisioned server's logging.properties names ${jboss.server.log.dir}/server.log
        // before that property is set, a path relative to where it starts
        ProcessBuilder builder = new ProcessBuilder(command).directory(base.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("console.log").toFile()));
        if (home != null) {
            builder.environment().put("JBOSS_HOME", home.toString());
            builder.environment().put("JAVA_OPTS", "-Xms256m -Xmx768m");
        }
        process = builder.start();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
        while (true) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create(url(readyPath))).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return this;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the WildFly at " + (home != null ? home : bootableJar)
                        + " did not start; see " + base.resolve("console.log"));
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

    /**
     * The JDBC URL of a database named {@code name} on the test's PostgreSQL, created afresh: each installation test
     * starts from an empty one (the Arquillian tests' schema is another's).
     */
    static String freshDatabase(TestDatabase db, String name) throws SQLException {
        try (Connection connection = db.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name);
            statement.execute("CREATE DATABASE " + name);
        }
        String url = db.jdbcUrl();
        int query = url.indexOf('?');
        String path = query < 0 ? url : url.substring(0, query);
        return path.substring(0, path.lastIndexOf('/') + 1) + name + (query < 0 ? "" : url.substring(query));
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
