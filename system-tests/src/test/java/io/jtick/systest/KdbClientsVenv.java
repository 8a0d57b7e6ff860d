package io.jtick.systest;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Python virtualenv of real kdb+ clients (PyKX, kola) that {@link KdbClientsIT} runs, and of the
 * PostgreSQL clients (psycopg 3, pandas) {@link SqlClientsIT} runs: created
 * under the repository's {@code .tools/kdb-clients} the first time (python3 -m venv, then pip install
 * -r system-tests/src/test/python/requirements.txt from PyPI) and reused while the requirements file
 * is unchanged. When it cannot be created (no python3-venv, no network to the package index) the
 * tests that need it are skipped, with the reason and the last lines pip printed.
 */
final class KdbClientsVenv {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path SCRIPTS = ROOT.resolve("system-tests/src/test/python");
    private static final Path VENV = ROOT.resolve(".tools/kdb-clients");

    private KdbClientsVenv() {
    }

    /** The venv's python, creating the venv if needed; aborts (skips) the calling test when that fails. */
    static synchronized Path python() throws IOException, InterruptedException {
        final Path requirements = SCRIPTS.resolve("requirements.txt");
        final Path marker = VENV.resolve("requirements.installed");
        final String wanted = Files.readString(requirements);
        final Path python = VENV.resolve("bin/python");
        if (Files.isExecutable(python) && Files.exists(marker) && Files.readString(marker).equals(wanted)) {
            return python;
        }
        Files.createDirectories(VENV.getParent());
        run(List.of("python3", "-m", "venv", "--clear", VENV.toString()), 180,
            "python3 -m venv failed (Debian: apt-get install python3-venv)");
        run(List.of(VENV.resolve("bin/pip").toString(), "install", "--disable-pip-version-check", "-q", "-r", requirements.toString()),
            1200, "pip install -r " + ROOT.relativize(requirements) + " failed (is the Python package index reachable?)");
        Files.writeString(marker, wanted);
        return python;
    }

    private static void run(final List<String> command, final int seconds, final String what) throws IOException, InterruptedException {
        final Path log = Files.createTempFile("kdb-clients-venv", ".log");
        try {
            final Process p;
            try {
                p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            } catch (final IOException e) {
                Assumptions.abort("cannot create the kdb+ clients' virtualenv: " + what + ": " + e.getMessage());
                return;
            }
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                Assumptions.abort("cannot create the kdb+ clients' virtualenv: " + what + ": no answer in " + seconds + " s");
            }
            if (p.exitValue() != 0) {
                final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                Assumptions.abort("cannot create the kdb+ clients' virtualenv: " + what + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 8), lines.size())));
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Runs {@code kdb_clients.py args...} to its end (at most {@code seconds}); returns its stdout lines, fails on a non-zero exit. */
    static List<String> run(final Path python, final int seconds, final String... args) throws IOException, InterruptedException {
        return runScript(python, seconds, "kdb_clients.py", args);
    }

    /** Runs {@code script args...} (a script of system-tests/src/test/python) to its end, as {@link #run} does. */
    static List<String> runScript(final Path python, final int seconds, final String script, final String... args)
        throws IOException, InterruptedException {
        final Process p = startScript(python, script, args);
        final List<String> out = new ArrayList<>();
        final Thread reader = drain(p, out);
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(script + " " + String.join(" ", args) + " did not end in " + seconds + " s: " + out);
        }
        reader.join(5000);
        if (p.exitValue() != 0) {
            throw new AssertionError(script + " " + String.join(" ", args) + " exited " + p.exitValue() + ":\n"
                + String.join("\n", out));
        }
        return out;
    }

    /** Starts {@code kdb_clients.py args...} with stderr merged into stdout. */
    static Process start(final Path python, final String... args) throws IOException {
        return startScript(python, "kdb_clients.py", args);
    }

    /** Starts {@code script args...} with stderr merged into stdout. */
    static Process startScript(final Path python, final String script, final String... args) throws IOException {
        final List<String> cmd = new ArrayList<>(List.of(python.toString(), "-u", SCRIPTS.resolve(script).toString()));
        cmd.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PYKX_UNLICENSED", "true");
        return pb.start();
    }

    /** A daemon thread copying {@code p}'s output lines into {@code out} (synchronized on it). */
    static Thread drain(final Process p, final List<String> out) {
        final Thread t = new Thread(() -> {
            try (var r = p.inputReader(StandardCharsets.UTF_8)) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (out) {
                        out.add(line);
                    }
                }
            } catch (final IOException e) {
                synchronized (out) {
                    out.add("(output lost: " + e + ")");
                }
            }
        }, "kdb-client-output");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
