package dev.projections.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster of the test's own, on its own port, from the machine's PostgreSQL binaries (never the
 * shared server): for tests that stop and restart the database. As root it runs as user {@code postgres}, since
 * PostgreSQL refuses to run as root.
 */
public final class OwnPostgres implements AutoCloseable {

    private static final Path BINARIES = Path.of("/usr/lib/postgresql");

    private final int port;
    private final Path dir;
    private final Path bin;

    public OwnPostgres(int port) throws IOException, InterruptedException {
        this.port = port;
        this.bin = binaries();
        this.dir = Files.createTempDirectory("projection-own-pg-");
        if (isRoot()) {
            run(List.of("chown", "postgres", dir.toString()));
        }
        run(asPostgres(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "--auth=trust",
                "-U", "postgres", "--no-sync"));
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /**
     * Starts the cluster. Right after a crash, backends of the old server may still hold its shared memory for a
     * moment ("pre-existing shared memory block is still in use"): the start is then tried again.
     */
    public OwnPostgres start() throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                run(asPostgres(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l",
                        dir.resolve("postgres.log").toString(), "-w", "-o",
                        "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start"));
                return this;
            } catch (IllegalStateException failed) {
                if (attempt == 10) {
                    throw new IllegalStateException(failed.getMessage() + "\n" + logTail(), failed);
                }
                Thread.sleep(1000);
            }
        }
    }

    private String logTail() throws IOException {
        Path log = dir.resolve("postgres.log");
        if (!Files.exists(log)) {
            return "(no postgres.log)";
        }
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    /** Stops at once, like a crash: no checkpoint, every connection cut; restart recovers from the WAL. */
    public void crash() throws IOException, InterruptedException {
        run(asPostgres(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
                "-w", "stop"));
    }

    public void createDatabase(String name) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url("postgres"), "postgres", "");
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            crash();
        } catch (IllegalStateException alreadyStopped) {
            // nothing running
        }
        run(List.of("rm", "-rf", dir.toString()));
    }

    private static Path binaries() throws IOException {
        if (!Files.isDirectory(BINARIES)) {
            throw new IllegalStateException("no PostgreSQL binaries under " + BINARIES
                    + ": this test starts a PostgreSQL of its own (apt-get install postgresql)");
        }
        try (var versions = Files.list(BINARIES)) {
            return versions.map(version -> version.resolve("bin")).filter(Files::isDirectory)
                    .max(java.util.Comparator.naturalOrder())
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL version under " + BINARIES));
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static List<String> asPostgres(String... command) {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(List.of(command));
        return full;
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
