package io.jtick.soak;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One service jar in its own JVM, as {@code ./jtick up} starts it: the JVM flags of {@code jvm.options}
 * (plus Java 24+'s), {@code -jar}, loopback, its HTTP port and its settings as arguments; output
 * appended to a log file. It can be killed ({@code kill -9}: {@link #kill9}) and started again with the
 * same command.
 */
public final class ServiceProcess implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final List<String> command;
    private final int httpPort;
    private final Path log;
    private Process process;
    private int starts;
    private volatile boolean paused;

    /**
     * @param jvmArgs extra JVM options (heap size...)
     * @param args    the service's settings ({@code --tick.tp.port=...})
     */
    public ServiceProcess(final String name, final Path repo, final Path jar, final int httpPort, final List<String> jvmArgs,
                          final List<String> args, final Path log) throws IOException {
        this.name = name;
        this.httpPort = httpPort;
        this.log = log;
        final List<String> c = new ArrayList<>();
        c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        c.addAll(jvmFlags(repo));
        c.addAll(jvmArgs);
        c.add("-jar");
        c.add(jar.toString());
        c.add("--server.address=127.0.0.1");
        c.add("--server.port=" + httpPort);
        // the PostgreSQL ports of the RDB and HDB on any free port (other services ignore the keys)
        c.add("--tick.rdb.pg-port=0");
        c.add("--tick.hdb.pg-port=0");
        c.add("--tick.rdb.kdb-port=0");
        c.add("--tick.hdb.kdb-port=0");
        c.addAll(args);
        this.command = List.copyOf(c);
    }

    /** The flags {@code ./jtick} gives every service: {@code jvm.options}, and Java 24+'s native-access flags. */
    static List<String> jvmFlags(final Path repo) throws IOException {
        final List<String> flags = new ArrayList<>();
        for (final String line : Files.readAllLines(repo.resolve("jvm.options"))) {
            final String f = line.replaceAll("#.*", "").trim();
            if (!f.isEmpty()) {
                flags.add(f);
            }
        }
        if (Runtime.version().feature() >= 24) {
            flags.add("--enable-native-access=ALL-UNNAMED");
            flags.add("--sun-misc-unsafe-memory-access=allow");
        }
        return flags;
    }

    public String name() {
        return name;
    }

    public int httpPort() {
        return httpPort;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** Starts the JVM (its output appended to the log). */
    public ServiceProcess start() throws IOException {
        if (alive()) {
            throw new IllegalStateException(name + " already runs [pid=" + process.pid() + "]");
        }
        Files.createDirectories(log.getParent());
        Files.writeString(log, "\n==== start " + (starts + 1) + ": " + String.join(" ", command) + "\n",
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
        starts++;
        paused = false;
        return this;
    }

    /** Waits until {@code /actuator/health} says UP; fails with the log's tail if the JVM exits or the time runs out. */
    public ServiceProcess awaitHealthy(final Duration timeout) throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited [code=" + process.exitValue() + "] before it was healthy; " + tail());
            }
            try {
                final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                    + "/actuator/health")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("\"UP\"")) {
                    return this;
                }
            } catch (final IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " not healthy after " + timeout + "; " + tail());
            }
            Thread.sleep(100);
        }
    }

    /** {@code kill -9}: SIGKILL, nothing flushed, nothing closed; waits until the process is gone. */
    public void kill9() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * {@code kill -STOP}: the JVM freezes (its sockets stay open, nothing answers) until {@link #resume};
     * a machine that stalls rather than dies.
     */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
        paused = true;
    }

    /** {@code kill -CONT}: a paused JVM runs on. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
        paused = false;
    }

    /** Stopped with {@link #pause} and not resumed. */
    public boolean paused() {
        return paused;
    }

    private void signal(final String signal) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException(name + " does not run: cannot send SIG" + signal);
        }
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true).start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new IOException("kill -" + signal + " " + process.pid() + " failed: " + new String(kill.getInputStream().readAllBytes()));
        }
    }

    /** The last lines of the log. */
    public String tail() {
        try {
            final List<String> lines = Files.readAllLines(log);
            return "last lines of " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (final IOException e) {
            return "no log [" + log + "]";
        }
    }

    /** Stops it (SIGTERM, then SIGKILL after 15 s); a paused JVM is resumed first so that it can stop. */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            try {
                resume();
            } catch (final IOException | IllegalStateException e) {
                // gone meanwhile
            }
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                kill9();
            }
        }
    }
}
