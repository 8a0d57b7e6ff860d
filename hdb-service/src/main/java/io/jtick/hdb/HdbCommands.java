package io.jtick.hdb;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import io.jtick.core.bulk.HdbImport;
import io.jtick.core.bulk.ImportCli;
import io.jtick.parquet.ParquetCli;
import io.jtick.parquet.ParquetImportJob;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HDB's command lines that need no running service ({@code ./jtick import}) or talk to one
 * over REST ({@code ./jtick replays}, and the reload after an import). {@code --url} (default
 * {@code http://127.0.0.1:8012}) and {@code --token} (or {@code JTICK_API_TOKEN}) are theirs; the
 * import's own options are {@link ImportCli}'s.
 */
final class HdbCommands {
    static final String IMPORT = "import";
    static final String EXPORT = "export";
    static final String REPLAYS = "replays";
    private static final String DEFAULT_URL = "http://127.0.0.1:8012";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private HdbCommands() {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err) {
        quietLogging();
        String url = DEFAULT_URL;
        String token = System.getenv("JTICK_API_TOKEN");
        final List<String> rest = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if ("--url".equals(args[i]) && i + 1 < args.length) {
                url = args[++i].replaceAll("/+$", "");
            } else if ("--token".equals(args[i]) && i + 1 < args.length) {
                token = args[++i];
            } else {
                rest.add(args[i]);
            }
        }
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        if (EXPORT.equals(args[0])) {
            return ParquetCli.export(args, out, err);
        }
        return IMPORT.equals(args[0]) ? importFiles(rest.toArray(new String[0]), url, token, http, out, err)
            : replays(url, token, http, out, err);
    }

    /**
     * Runs the import in this process into {@code --root}; then, when an HDB answers at {@code --url},
     * asks it to reload so the new dates are served at once (the writes are atomic renames, as an RDB's end of day).
     */
    private static int importFiles(final String[] args, final String url, final String token, final HttpClient http, final PrintStream out,
                                   final PrintStream err) {
        final AtomicReference<HdbImport.Report> report = new AtomicReference<>();
        final String[] withVerb = new String[args.length + 1];
        withVerb[0] = IMPORT;
        System.arraycopy(args, 0, withVerb, 1, args.length);
        final int status = args.length > 0 && ParquetImportJob.SOURCE.equals(args[0]) ? ParquetCli.importFiles(withVerb, out, err, report)
            : ImportCli.run(args, out, err, report);
        final HdbImport.Report r = report.get();
        if (r == null || r.dates().isEmpty()) {
            return status;
        }
        try {
            final HttpResponse<String> reload = http.send(request(url + "/api/reload", token).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
            err.println("jtick import: the HDB at " + url + " reloaded (HTTP " + reload.statusCode() + ")"
                + (reload.statusCode() >= 400 ? ": " + reload.body() : ""));
        } catch (final ConnectException e) {
            err.println("jtick import: no HDB at " + url + " to reload (it loads the new dates when it starts)");
        } catch (final IOException e) {
            err.println("jtick import: could not ask the HDB at " + url + " to reload: " + e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return status;
    }

    /** Prints {@code GET /api/replays} as a table: progress of each replay. */
    private static int replays(final String url, final String token, final HttpClient http, final PrintStream out, final PrintStream err) {
        final HttpResponse<String> r;
        try {
            r = http.send(request(url + "/api/replays", token).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            err.println("jtick replays: no HDB at " + url + ": " + e);
            return 3;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return 3;
        }
        if (r.statusCode() != 200) {
            err.println("jtick replays: HTTP " + r.statusCode() + ": " + r.body());
            return 3;
        }
        final JsonNode v = JSON.readTree(r.body());
        out.printf(Locale.ROOT, "replay port %d: %d running, %d streams%n", v.get("port").asInt(), v.get("running").asInt(),
            v.get("streams").asInt());
        out.printf(Locale.ROOT, "%6s %-24s %-12s %-22s %14s %14s %7s %12s %7s%n", "id", "consumer", "state", "dates", "rows sent",
            "of", "%", "rows/s", "shared");
        for (final JsonNode x : v.get("replays")) {
            out.printf(Locale.ROOT, "%6d %-24s %-12s %-22s %,14d %,14d %6.1f%% %,12d %7s%n", x.get("id").asLong(),
                x.get("consumer").asString(), x.get("state").asString(), x.get("from").asString() + ".." + x.get("to").asString(),
                x.get("rowsSent").asLong(), x.get("totalRows").asLong(), x.get("progress").asDouble(), x.get("rowsPerSecond").asLong(),
                x.get("shared").asBoolean() ? "yes" : "no");
        }
        return 0;
    }

    private static HttpRequest.Builder request(final String url, final String token) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        if (token != null && !token.isBlank()) {
            b.header("Authorization", "Bearer " + token.trim());
        }
        return b;
    }

    /** Warnings only, to stderr: Spring Boot does not start here. */
    private static void quietLogging() {
        final URL config = HdbCommands.class.getResource("/logback-cli.xml");
        if (config != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            ctx.reset();
            final JoranConfigurator joran = new JoranConfigurator();
            joran.setContext(ctx);
            try {
                joran.doConfigure(config);
            } catch (final JoranException e) {
                System.err.println("jtick: logging not configured: " + e);
            }
        }
    }
}
