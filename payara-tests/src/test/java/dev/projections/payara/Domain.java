package dev.projections.payara;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A domain of its own of a GlassFish-family server (Payara, GlassFish) for one test class: created on a port base no
 * other test uses, started, set up by the repository's install script ({@code ProjectionPool}, {@code jdbc/ProjectionDS},
 * the realm {@code Projections}), stopped at the end whatever happened (also when the JVM is aborted).
 */
final class Domain {

    private final Path home;
    private final Path domains;
    private final String name;
    private final int portBase;
    private final Asadmin asadmin;
    private final Consumer<String> log;
    private boolean started;

    Domain(Path home, Path domains, String name, int portBase, Consumer<String> log) {
        this.home = home;
        this.domains = domains.toAbsolutePath();
        this.name = name;
        this.portBase = portBase;
        this.asadmin = new Asadmin(home, adminPort());
        this.log = log;
    }

    int adminPort() {
        return portBase + 48;
    }

    int httpPort() {
        return portBase + 80;
    }

    Asadmin asadmin() {
        return asadmin;
    }

    /** Creates the domain afresh (a run that died before leaves one behind) and starts it. */
    void createAndStart() throws IOException {
        if (!Files.isExecutable(home.resolve("bin/asadmin"))) {
            throw new IllegalStateException("no unpacked distribution at " + home);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
        if (Files.isDirectory(domains.resolve(name))) {
            asadmin.local(120, "stop-domain", "--domaindir", domains.toString(), name);
            deleteTree(domains.resolve(name));
        }
        for (int port : new int[] {adminPort(), httpPort(), portBase + 81, portBase + 37}) {
            requireFree(port);
        }
        log.accept("create-domain (portbase " + portBase + ")");
        Asadmin.Result created = asadmin.local(300, "create-domain", "--domaindir", domains.toString(), "--portbase",
                Integer.toString(portBase), "--nopassword", name);
        if (!created.ok()) {
            throw new IllegalStateException(created.output());
        }
        log.accept("start-domain");
        synchronized (this) {
            started = true;
        }
        Asadmin.Result start = asadmin.local(300, "start-domain", "--domaindir", domains.toString(), name);
        if (!start.ok()) {
            throw new IllegalStateException(start.output());
        }
    }

    /**
     * The server's side as docs/guide/payara-glassfish.md "Running on Payara and GlassFish" tells an operator: the PostgreSQL driver, the
     * database's coordinates as system properties, then {@code asadmin multimode --file} with the repository's
     * {@code docs/install/glassfish.asadmin} (pool, {@code jdbc/ProjectionDS}, the realm {@code Projections}).
     */
    void installProjections(Path driver, Path script, Database db) {
        asadmin.ok("add-library", driver.toAbsolutePath().toString());
        // the server wants a password property even where PostgreSQL's trust authentication ignores it
        String password = db.password().isEmpty() ? "trust-ignores-it" : db.password();
        asadmin.ok("create-system-properties", "projections.db.host=" + db.host() + ":projections.db.port=" + db.port()
                + ":projections.db.name=" + db.name() + ":projections.db.user=" + db.user()
                + ":projections.db.password=" + password);
        String ran = asadmin.ok("multimode", "--file", script.toAbsolutePath().toString());
        // multimode carries on past a failed command and exits with the last one's status (docs/pitfalls.md #110)
        if (ran.toLowerCase(java.util.Locale.ROOT).contains("failed")) {
            throw new IllegalStateException("a command of " + script.getFileName() + " failed:\n" + ran);
        }
        asadmin.ok("ping-connection-pool", "ProjectionPool");
        requireListed(asadmin.ok("list-jdbc-resources"), "jdbc/ProjectionDS");
        requireListed(asadmin.ok("list-auth-realms"), "Projections");
    }

    private static void requireListed(String listing, String name) {
        if (listing.lines().map(String::strip).noneMatch(name::equals)) {
            throw new IllegalStateException(name + " is not there after the install script:\n" + listing);
        }
    }

    /** An operator of the console in the realm the script created; {@code role} is its group. */
    void operator(String name, String password, String role) {
        asadmin.okWithPassword(password, "create-file-user", "--authrealmname", "Projections", "--groups", role, name);
    }

    /** The server's default datasource, {@code jdbc/__default}, on the script's pool (for units that name none). */
    void defaultDatasourceOnTheProjectionsPool() {
        asadmin.ok("set", "resources.jdbc-resource.jdbc/__default.pool-name=ProjectionPool");
    }

    void stop() {
        synchronized (this) {
            if (!started) {
                return;
            }
            started = false;
        }
        log.accept("stop-domain");
        Asadmin.Result stopped = asadmin.local(180, "stop-domain", "--domaindir", domains.toString(), "--kill=false",
                name);
        if (!stopped.ok()) {
            log.accept("stop-domain failed, killing it: " + stopped.output());
            asadmin.local(60, "stop-domain", "--domaindir", domains.toString(), "--kill=true", name);
        }
        log.accept("stopped");
    }

    /** The domain's log, rotated files included (the domain is this run's own). */
    String serverLog() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(domains.resolve(name).resolve("logs"))) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("server.log")).sorted().toList()) {
                all.append(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
            }
        }
        return all.toString();
    }

    private static void requireFree(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            socket.setReuseAddress(true);
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " is taken: another domain? (-Dpayara.portbase=…)", e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
