package io.jtick.feedsim;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.report.PaperFigures;
import io.jtick.lab.profiling.ProfilingRun;
import io.jtick.lab.report.ResultChart;
import io.jtick.lab.report.ResultTables;
import io.jtick.lab.profiling.RunConsole;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import io.jtick.core.time.NanoClock;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code ./jtick profile <experiment>}: runs a profiling experiment and prints its table. When
 * feed-sim answers at {@code --url} (default {@code http://127.0.0.1:8013}, what {@code ./jtick up}
 * starts) the run goes through its REST API, so it is stored and listed there and the one-run-at-a-time
 * rule holds; otherwise it runs in this process and stores the run under {@code --runs-dir} (the
 * directory feed-sim reads at start). Progress goes to stderr, the result to stdout or {@code --out}.
 * Ctrl-C stops the run (it is kept, as stopped). Exit status: 0 done, 1 failed or stopped, 2 bad
 * arguments or parameters, 3 feed-sim refused or could not be reached. This class only reads the
 * command line, talks to feed-sim over HTTP and writes the result; running, progress lines and the
 * exit status of a run are the lab's ({@link RunConsole}).
 */
final class ProfileCommand {
    static final String USAGE = String.join("\n",
        "usage: ./jtick profile <experiment> [options]",
        "  experiments: " + Experiment.ids() + ", or all (every experiment's default matrix, one after the other)",
        "  --duration S      most seconds per matrix entry, warm-up included (default " + RunSpec.DEFAULT_DURATION_SECONDS + ")",
        "  --matrix JSON     entries overriding the experiment's base, e.g. '[{\"r\":1,\"u\":10,\"t\":1},{\"r\":100}]'",
        "                    keys: " + LabParams.KEYS + " (default: the experiment's own matrix)",
        "  --format F        text (default), csv, json or svg",
        "  --out FILE        write the result there instead of stdout (all: FILE.<experiment>)",
        "  --url URL         feed-sim to run it on (default http://127.0.0.1:8013; when it does not answer the run is local)",
        "  --token T         API token for a feed-sim on another host (or JTICK_API_TOKEN)",
        "  --local           run in this process even if feed-sim answers",
        "  --runs-dir DIR    local runs: where to store the run (default ./var/runs)",
        "  --paper FILE      local runs: the paper's figures (default ../shared/reference/kx-tick-profiling.csv)",
        "  --jit-warmup MS   local runs: JIT warm-up before the first entry (default "
            + ProfilingRun.Settings.DEFAULT_JIT_WARMUP_MILLIS + ")",
        "  --data-dir DIR    local runs: the shared data folder (replay's real day; default ../shared/data)",
        "  replay: keys consumers, streams (1 = one stream, N = independent), data (synthetic|algoseek), encoding, rows, syms;",
        "          all runs every experiment's default matrix (white paper, AquaQ, throughput.q, io.q) but replay's");

    private static final String DEFAULT_URL = "http://127.0.0.1:8013";
    private static final String ALL = "all";
    private static final JsonMapper JSON = RunStore.mapper();

    /** Parsed command line. */
    record Options(String experiment, Integer duration, Object matrix, String format, Path out, String url, boolean urlGiven,
                   String token, boolean local, Path runsDir, Path paper, long jitWarmupMillis, Path dataDir) {
        Map<String, Object> body() {
            final Map<String, Object> b = new LinkedHashMap<>();
            b.put("experiment", experiment);
            if (duration != null) {
                b.put("durationSeconds", duration);
            }
            if (matrix != null) {
                b.put("matrix", matrix);
            }
            return b;
        }
    }

    private ProfileCommand() {
    }

    static Options parse(final String[] args) {
        String experiment = null;
        Integer duration = null;
        Object matrix = null;
        String format = "text";
        Path out = null;
        String url = DEFAULT_URL;
        boolean urlGiven = false;
        String token = System.getenv("JTICK_API_TOKEN");
        boolean local = false;
        Path runsDir = Path.of("var", "runs");
        Path paper = Path.of("..", "shared", "reference", "kx-tick-profiling.csv");
        long jit = ProfilingRun.Settings.DEFAULT_JIT_WARMUP_MILLIS;
        Path dataDir = Path.of("..", "shared", "data");
        for (int i = 0; i < args.length; i++) {
            final String a = args[i];
            if ("-h".equals(a) || "--help".equals(a)) {
                throw new IllegalArgumentException(USAGE);
            }
            if ("--local".equals(a)) {
                local = true;
                continue;
            }
            if (!a.startsWith("--")) {
                if (experiment != null) {
                    throw new IllegalArgumentException("one experiment only [extra=" + a + "]\n" + USAGE);
                }
                experiment = a;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + a + "\n" + USAGE);
            }
            final String v = args[++i];
            switch (a) {
                case "--duration":
                    duration = number(a, v);
                    break;
                case "--matrix":
                    try {
                        matrix = JSON.readValue(v, Object.class);
                    } catch (final JacksonException e) {
                        throw new IllegalArgumentException("--matrix is not JSON: " + e.getOriginalMessage(), e);
                    }
                    break;
                case "--format":
                    format = v.toLowerCase(Locale.ROOT);
                    if (!List.of("text", "csv", "json", "svg").contains(format)) {
                        throw new IllegalArgumentException("unknown format [format=" + v + ", known=text|csv|json|svg]");
                    }
                    break;
                case "--out":
                    out = Path.of(v);
                    break;
                case "--url":
                    url = v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
                    urlGiven = true;
                    break;
                case "--token":
                    token = v;
                    break;
                case "--runs-dir":
                    runsDir = Path.of(v);
                    break;
                case "--paper":
                    paper = Path.of(v);
                    break;
                case "--jit-warmup":
                    jit = number(a, v);
                    break;
                case "--data-dir":
                    dataDir = Path.of(v);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
            }
        }
        if (experiment == null) {
            throw new IllegalArgumentException("which experiment?\n" + USAGE);
        }
        return new Options(experiment, duration, matrix, format, out, url, urlGiven, token, local, runsDir, paper, jit, dataDir);
    }

    private static int number(final String option, final String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number [" + option + "=" + v + "]", e);
        }
    }

    public static void main(final String[] args) {
        quietLogging();
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Warnings only, to stderr ({@code logback-cli.xml}): Spring Boot does not start here, and
     * logback's fallback would print INFO lines to stdout, into the table. Set explicitly because
     * Spring Boot's logback configurator takes precedence over {@code logback.configurationFile}.
     */
    private static void quietLogging() {
        final URL config = ProfileCommand.class.getResource("/logback-cli.xml");
        if (config != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            ctx.reset();
            final JoranConfigurator joran = new JoranConfigurator();
            joran.setContext(ctx);
            try {
                joran.doConfigure(config);
            } catch (final JoranException e) {
                System.err.println("jtick profile: logging not configured: " + e);
            }
        }
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err) {
        final Options o;
        try {
            o = parse(args);
            if (ALL.equals(o.experiment())) {
                if (o.matrix() != null) {
                    throw new IllegalArgumentException("all runs the default matrices: --matrix goes with one experiment");
                }
                return all(o, out, err);
            }
            RunSpec.parse(o.body());
        } catch (final IllegalArgumentException e) {
            err.println("jtick profile: " + e.getMessage());
            return 2;
        }
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        if (!o.local()) {
            try {
                final HttpResponse<String> health = http.send(request(o, "/actuator/health").GET().build(),
                    HttpResponse.BodyHandlers.ofString());
                err.println("jtick profile: running on feed-sim at " + o.url() + " (health " + health.statusCode() + ")");
                return new Remote(o, http, out, err).run();
            } catch (final ConnectException e) {
                if (o.urlGiven()) {
                    err.println("jtick profile: feed-sim does not answer at " + o.url() + " (" + e + ")");
                    return 3;
                }
                err.println("jtick profile: no feed-sim at " + o.url() + ": running in this process");
            } catch (final IOException e) {
                err.println("jtick profile: cannot reach feed-sim at " + o.url() + ": " + e);
                return 3;
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return 3;
            }
        }
        return local(o, out, err);
    }

    /** Every experiment's default matrix in turn (custom has none); the worst exit status wins. */
    private static int all(final Options o, final PrintStream out, final PrintStream err) {
        final long t0 = System.nanoTime();
        int worst = 0;
        for (final Experiment e : Experiment.values()) {
            if (e == Experiment.CUSTOM || e == Experiment.REPLAY) {
                continue;
            }
            // a local run's JIT is warm after the first experiment (a feed-sim warms up per run on its own)
            final long jit = e == Experiment.ROWS_PER_UPDATE ? o.jitWarmupMillis() : 0;
            final List<String> a = new java.util.ArrayList<>(List.of(e.id(), "--format", o.format(),
                "--runs-dir", o.runsDir().toString(), "--paper", o.paper().toString(), "--jit-warmup", Long.toString(jit)));
            if (o.urlGiven()) {
                a.addAll(List.of("--url", o.url()));
            }
            if (o.duration() != null) {
                a.addAll(List.of("--duration", Integer.toString(o.duration())));
            }
            if (o.token() != null) {
                a.addAll(List.of("--token", o.token()));
            }
            if (o.local()) {
                a.add("--local");
            }
            if (o.out() != null) {
                a.addAll(List.of("--out", o.out().toString() + "." + e.id()));
            }
            err.println("jtick profile: === " + e.id() + " ===");
            worst = Math.max(worst, run(a.toArray(new String[0]), out, err));
            out.println();
            if (worst >= 2) {
                break;
            }
        }
        err.printf(Locale.ROOT, "jtick profile: all experiments took %.0f s%n", (System.nanoTime() - t0) / 1e9);
        return worst;
    }

    private static HttpRequest.Builder request(final Options o, final String path) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(o.url() + path)).timeout(Duration.ofSeconds(30));
        if (o.token() != null && !o.token().isBlank()) {
            b.header("Authorization", "Bearer " + o.token().trim());
        }
        return b;
    }

    // ------------------------------------------------------------------ in this process

    private static int local(final Options o, final PrintStream out, final PrintStream err) {
        final RunSpec spec = RunSpec.parse(o.body());
        final RunStore store = new RunStore(o.runsDir());
        final Path work = Path.of(System.getProperty("java.io.tmpdir"), "jtick-lab");
        final ProfilingRun run = new ProfilingRun(ProfilingRun.newId(spec), spec,
            new ProfilingRun.Settings(work, PaperFigures.load(o.paper()), 42, NanoClock.SYSTEM, o.jitWarmupMillis(), o.dataDir()),
            store::save);
        err.println("jtick profile: run " + run.id() + ", " + spec.matrix().size() + " entries, at most " + spec.durationSeconds()
            + " s each; stored in " + store.dir().resolve(run.id() + ".json"));
        final RunReport report = RunConsole.runHere(run, err);
        return finish(o, report.status(), render(report, o.format()), out, err);
    }

    static String render(final RunReport report, final String format) {
        switch (format) {
            case "csv":
                return ResultTables.csv(report);
            case "json":
                return JSON.writeValueAsString(report) + "\n";
            case "svg":
                return ResultChart.svg(report);
            case "text":
            default:
                return ResultTables.text(report);
        }
    }

    private static int finish(final Options o, final String status, final String result, final PrintStream out,
                              final PrintStream err) {
        if (o.out() != null) {
            try {
                Files.writeString(o.out(), result, StandardCharsets.UTF_8);
                err.println("jtick profile: wrote " + o.out());
            } catch (final IOException e) {
                err.println("jtick profile: cannot write " + o.out() + ": " + e);
                out.print(result);
            }
        } else {
            out.print(result);
        }
        out.flush();
        err.println("jtick profile: run " + status);
        return RunConsole.exitStatus(status);
    }

    // ------------------------------------------------------------------ through feed-sim's REST API

    /** A run on a feed-sim service: POST, poll, fetch the result in the wanted format. */
    private static final class Remote {
        private final Options o;
        private final HttpClient http;
        private final PrintStream out;
        private final PrintStream err;
        private volatile String id;
        private volatile boolean ended;

        Remote(final Options o, final HttpClient http, final PrintStream out, final PrintStream err) {
            this.o = o;
            this.http = http;
            this.out = out;
            this.err = err;
        }

        int run() throws IOException, InterruptedException {
            final HttpResponse<String> created = http.send(request(o, "/api/runs").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(o.body()))).build(),
                HttpResponse.BodyHandlers.ofString());
            if (created.statusCode() != 202 && created.statusCode() != 200) {
                err.println("jtick profile: feed-sim refused the run (HTTP " + created.statusCode() + "): " + error(created.body())
                    + (created.statusCode() == 404 ? " (the service at " + o.url() + " has no /api/runs: another or an older build?"
                    + " use --local to run in this process)" : ""));
                return created.statusCode() == 400 ? 2 : 3;
            }
            id = String.valueOf(JSON.readValue(created.body(), Map.class).get("id"));
            err.println("jtick profile: run " + id + " started; " + o.url() + "/api/runs/" + id);
            final Thread hook = new Thread(this::stopIfRunning, "profile-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            String last = "";
            String status = RunReport.RUNNING;
            while (RunReport.RUNNING.equals(status)) {
                final HttpResponse<String> r = http.send(request(o, "/api/runs/" + id).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    err.println("jtick profile: cannot read the run (HTTP " + r.statusCode() + "): " + error(r.body()));
                    return 3;
                }
                final RunReport report = JSON.readValue(r.body(), RunReport.class);
                status = report.status();
                last = RunConsole.progress(err, report, last);
                if (RunReport.RUNNING.equals(status)) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                }
            }
            ended = true;
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (final IllegalStateException e) {
                err.println("jtick profile: shutting down");
            }
            final HttpResponse<String> result = http.send(request(o, "/api/runs/" + id + "?format=" + o.format()).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            return finish(o, status, result.body(), out, err);
        }

        private void stopIfRunning() {
            if (id != null && !ended) {
                err.println("\njtick profile: stopping run " + id);
                try {
                    http.send(request(o, "/api/runs/" + id).DELETE().build(), HttpResponse.BodyHandlers.discarding());
                } catch (final IOException e) {
                    err.println("jtick profile: could not stop the run: " + e);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private static String error(final String body) {
            try {
                final Object e = JSON.readValue(body, Map.class).get("error");
                return e == null ? body : String.valueOf(e);
            } catch (final JacksonException e) {
                return body;
            }
        }
    }
}
