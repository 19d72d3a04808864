package dev.projections.payara;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs Payara's {@code asadmin} against the test's domain: local commands, or remote ones on its admin port. */
final class Asadmin {

    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    private final Path home;
    private final int adminPort;

    Asadmin(Path home, int adminPort) {
        this.home = home;
        this.adminPort = adminPort;
    }

    /** A local command (create-domain, start-domain, stop-domain): no admin port. */
    Result local(long timeoutSeconds, String... args) {
        return run(timeoutSeconds, null, List.of(args));
    }

    /** A remote command on the domain's admin port; fails the test when asadmin does. */
    String ok(String... args) {
        Result result = remote(null, args);
        if (!result.ok()) {
            throw new IllegalStateException("asadmin " + String.join(" ", args) + " failed (" + result.exitCode()
                    + "):\n" + result.output());
        }
        return result.output();
    }

    /** A remote command whose passwords ({@code AS_ADMIN_USERPASSWORD=…}) come from a password file. */
    String okWithPassword(String password, String... args) {
        Result result = remote(password, args);
        if (!result.ok()) {
            throw new IllegalStateException("asadmin " + String.join(" ", args) + " failed:\n" + result.output());
        }
        return result.output();
    }

    Result remote(String userPassword, String... args) {
        return run(600, userPassword, List.of(args));
    }

    private Result run(long timeoutSeconds, String userPassword, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/asadmin").toString());
        command.add("--interactive=false");
        Path passwordFile = null;
        Path output = null;
        try {
            if (userPassword != null) {
                passwordFile = Files.createTempFile("asadmin", ".pw");
                Files.writeString(passwordFile, "AS_ADMIN_USERPASSWORD=" + userPassword + "\n");
                command.add("--passwordfile");
                command.add(passwordFile.toString());
            }
            boolean remote = !args.isEmpty() && !args.get(0).endsWith("-domain");
            if (remote) {
                command.add("--port");
                command.add(Integer.toString(adminPort));
            }
            command.addAll(args);
            // to a file, not a pipe: start-domain leaves a server process behind that could hold a pipe open
            output = Files.createTempFile("asadmin", ".out");
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(-1, "timed out after " + timeoutSeconds + " s: " + command);
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            for (Path temporary : new Path[] {passwordFile, output}) {
                if (temporary != null) {
                    try {
                        Files.deleteIfExists(temporary);
                    } catch (IOException ignored) {
                        // a temp file
                    }
                }
            }
        }
    }
}
