package io.jtick.feedsim;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ApiException;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.feed.AlgoSeekSource;
import io.jtick.core.feed.FeedCounters;
import io.jtick.core.feed.FeedRunner;
import io.jtick.core.feed.FeedStatus;
import io.jtick.core.feed.LobsterSource;
import io.jtick.core.feed.Pace;
import io.jtick.core.feed.RunSettings;
import io.jtick.core.feed.SyntheticFeed;
import io.jtick.core.feed.TaqSource;
import io.jtick.core.feed.TickSource;
import io.jtick.core.time.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.http.HttpStatus;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Starts, stops and reports the one feed this process runs. A start checks every parameter and
 * opens the replay files on the caller's thread (so mistakes are a 400), then a feed thread
 * connects to the tickerplant, retrying until it is up or the feed is stopped, and runs a
 * {@link FeedRunner} on itself.
 */
class FeedService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FeedService.class);
    private static final long CONNECT_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final String TAQ = "highfrequency-taq-sample-2018-01";
    private static final String ALGOSEEK = "lean-algoseek-us-equity-ticks-2013-10";
    private static final String LOBSTER = "lobster-amzn-2012-06-21-level1";

    private final FeedProperties properties;
    private final FeedCounters counters;
    private Job job;

    FeedService(final FeedProperties properties, final FeedCounters counters) {
        this.properties = properties;
        this.counters = counters;
    }

    @EventListener(ApplicationReadyEvent.class)
    void autostart() {
        if (properties.autostart()) {
            LOG.info("autostart: synthetic feed [table={}, r={}, u={}, t={}ms, syms={}, tp={}:{}]", properties.table(),
                properties.r(), properties.u(), properties.t(), properties.syms(), properties.tpHost(), properties.tpPort());
            start(StartRequest.defaults());
        }
    }

    synchronized Map<String, Object> start(final StartRequest req) {
        if (job != null && !job.ended()) {
            throw new ApiException(HttpStatus.CONFLICT, "a feed is already running; POST /api/feed/stop first [state=" + job.state() + "]");
        }
        final String source = lower(or(req.source(), "synthetic"));
        final boolean synthetic = "synthetic".equals(source);
        final String table = lower(or(req.table(), properties.table()));
        if (!"trade".equals(table) && !"quote".equals(table)) {
            throw ApiErrors.badRequest("unknown table, expected trade or quote [table=" + table + "]");
        }
        final int ex = or(req.ex(), properties.ex());
        if (ex < 0 || ex > 1024) {
            throw ApiErrors.badRequest("ex (extra float columns) must be 0..1024 [ex=" + ex + "]");
        }
        final Pace pace = req.pace() == null ? (synthetic ? Pace.TIMER : Pace.RECORDED) : Pace.parse(req.pace());
        if (synthetic && pace == Pace.RECORDED) {
            throw ApiErrors.badRequest("recorded pace needs a replay source (taq, algoseek or lobster) [source=synthetic]");
        }
        final long durationSeconds = or(req.durationSeconds(), 0L);
        if (durationSeconds < 0 || durationSeconds > TimeUnit.DAYS.toSeconds(365)) {
            throw ApiErrors.badRequest("durationSeconds must be 0 (no limit) or positive [durationSeconds=" + durationSeconds + "]");
        }
        final RunSettings settings = new RunSettings(or(req.r(), properties.r()), or(req.u(), properties.u()),
            or(req.t(), properties.t()), pace, or(req.speed(), 1.0), or(req.maxRows(), 0L), durationSeconds * 1000);
        final Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("source", source);
        parameters.put("table", table);
        parameters.put("r", settings.rowsPerUpdate());
        parameters.put("u", settings.updatesPerTick());
        parameters.put("t", settings.timerMillis());
        parameters.put("ex", ex);
        parameters.put("pace", pace.name().toLowerCase(Locale.ROOT));
        parameters.put("maxRows", settings.maxRows());
        parameters.put("durationSeconds", durationSeconds);
        final TickSource tickSource = openSource(req, source, table, ex, parameters);
        if (!synthetic) {
            parameters.put("speed", settings.speed());
        }
        job = new Job(tickSource, settings, parameters);
        job.start();
        LOG.info("feed started {}", parameters);
        return status();
    }

    private TickSource openSource(final StartRequest req, final String source, final String table, final int ex,
                                  final Map<String, Object> parameters) {
        final boolean trade = "trade".equals(table);
        try {
            switch (source) {
                case "synthetic": {
                    final int syms = or(req.syms(), properties.syms());
                    final long seed = or(req.seed(), properties.seed());
                    final boolean stampTime = or(req.stampTime(), false);
                    parameters.put("syms", syms);
                    parameters.put("seed", seed);
                    parameters.put("stampTime", stampTime);
                    return new SyntheticFeed(table, ex, syms, seed, NanoClock.SYSTEM, stampTime);
                }
                case "taq": {
                    final Path file = resolve(req.file(), TAQ + (trade ? "/trades.csv.gz" : "/quotes.csv.gz"));
                    parameters.put("file", file.toString());
                    return trade ? TaqSource.trades(file, ex) : TaqSource.quotes(file, ex);
                }
                case "algoseek": {
                    final Path dir = resolve(req.file(), ALGOSEEK);
                    final List<String> symbols = req.symbols() == null ? List.of() : req.symbols();
                    final List<String> dates = req.dates() == null ? List.of() : req.dates();
                    parameters.put("file", dir.toString());
                    parameters.put("symbols", symbols);
                    parameters.put("dates", dates);
                    return AlgoSeekSource.open(dir, table, symbols, dates, ex);
                }
                case "lobster": {
                    final Path dir = resolve(req.file(), LOBSTER);
                    parameters.put("file", dir.toString());
                    return LobsterSource.open(dir, table, ex);
                }
                default:
                    throw ApiErrors.badRequest("unknown source, expected synthetic, taq, algoseek or lobster [source=" + source + "]");
            }
        } catch (final IOException e) {
            throw ApiErrors.badRequest("cannot open the replay data [source=" + source + "]: " + e.getMessage());
        }
    }

    private Path resolve(final String file, final String dflt) {
        return properties.dataDir().resolve(file == null || file.isBlank() ? dflt : file).normalize();
    }

    Map<String, Object> stop() {
        final Job j;
        synchronized (this) {
            j = job;
        }
        if (j != null) {
            j.stop();
            try {
                if (!j.awaitEnd(10, TimeUnit.SECONDS)) {
                    LOG.warn("feed did not stop within 10 s [state={}]", j.state());
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return status();
    }

    synchronized Map<String, Object> status() {
        final Map<String, Object> m = new LinkedHashMap<>();
        final Job j = job;
        final FeedRunner runner = j == null ? null : j.runner;
        final FeedStatus s = runner == null ? null : runner.status();
        m.put("running", j != null && !j.ended());
        m.put("state", j == null ? "idle" : j.state());
        m.put("stopReason", s == null ? null : s.stopReason());
        m.put("tp", properties.tpHost() + ":" + properties.tpPort());
        m.put("parameters", j == null ? Map.of() : j.parameters);
        m.put("rowsSent", s == null ? 0 : s.rowsSent());
        m.put("updatesSent", s == null ? 0 : s.updatesSent());
        m.put("bytesSent", s == null ? 0 : s.bytesSent());
        m.put("rowsPerSecond", s == null ? 0.0 : Math.round(s.rowsPerSecond() * 10) / 10.0);
        m.put("elapsedMillis", s == null ? 0 : s.elapsedMillis());
        m.put("backPressureWaits", s == null ? 0 : s.backPressureWaits());
        m.put("behindScheduleMillis", s == null ? 0 : s.behindScheduleMillis());
        m.put("maxBehindScheduleMillis", s == null ? 0 : s.maxBehindScheduleMillis());
        m.put("tpErrors", s == null ? 0 : s.tpErrors());
        m.put("connectAttempts", j == null ? 0 : j.connectAttempts);
        m.put("lastError", s != null && s.lastError() != null ? s.lastError() : j == null ? null : j.error);
        return m;
    }

    @Override
    public void close() {
        stop();
    }

    private static String lower(final String s) {
        return s.trim().toLowerCase(Locale.ROOT);
    }

    private static <T> T or(final T value, final T dflt) {
        return value != null ? value : dflt;
    }

    /** One feed: connect (with retries), then run the source; owns the connection and the source. */
    private final class Job implements Runnable {
        final TickSource source;
        final RunSettings settings;
        final Map<String, Object> parameters;
        final CountDownLatch done = new CountDownLatch(1);
        volatile FeedRunner runner;
        volatile boolean stopRequested;
        volatile String error;
        volatile int connectAttempts;
        volatile String ownState = "connecting";
        private Thread thread;

        Job(final TickSource source, final RunSettings settings, final Map<String, Object> parameters) {
            this.source = source;
            this.settings = settings;
            this.parameters = Map.copyOf(parameters);
        }

        void start() {
            thread = new Thread(this, "feed-sim-" + parameters.get("source"));
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            final FeedPublisher publisher = new FeedPublisher(properties.tpHost(), properties.tpPort(), "feed-sim", null);
            boolean handedOver = false;
            try {
                while (!stopRequested) {
                    connectAttempts++;
                    try {
                        publisher.connect(2_000);
                        break;
                    } catch (final IOException e) {
                        error = e.getMessage() + " (retrying every second)";
                        if (connectAttempts == 1 || connectAttempts % 30 == 0) {
                            LOG.info("tickerplant not reachable yet, retrying [host={}, port={}, attempts={}]", properties.tpHost(),
                                properties.tpPort(), connectAttempts);
                        }
                        LockSupport.parkNanos(this, CONNECT_RETRY_NANOS);
                    }
                }
                if (stopRequested) {
                    ownState = "stopped";
                    return;
                }
                error = null;
                final FeedRunner r = new FeedRunner(source, publisher, settings, NanoClock.SYSTEM, counters);
                runner = r;
                handedOver = true;
                if (stopRequested) {
                    r.stop();
                }
                r.run();
                final FeedStatus s = r.status();
                LOG.info("feed ended [state={}, reason={}, rows={}, rowsPerSecond={}]", s.state(), s.stopReason(), s.rowsSent(),
                    Math.round(s.rowsPerSecond()));
            } catch (final RuntimeException e) {
                error = e.toString();
                ownState = "failed";
                LOG.warn("feed failed", e);
            } finally {
                if (!handedOver) {
                    source.close();
                }
                publisher.close();
                done.countDown();
            }
        }

        void stop() {
            stopRequested = true;
            final FeedRunner r = runner;
            if (r != null) {
                r.stop();
            }
            if (thread != null) {
                LockSupport.unpark(thread);
            }
        }

        boolean awaitEnd(final long timeout, final TimeUnit unit) throws InterruptedException {
            return done.await(timeout, unit);
        }

        boolean ended() {
            return done.getCount() == 0;
        }

        String state() {
            final FeedRunner r = runner;
            return r != null ? r.status().state() : ownState;
        }
    }
}
