package io.jtick.core.feed;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Starts, stops and reports the one feed a process runs (feed-sim's {@code /api/feed}). A start
 * checks every parameter of the {@link FeedRequest} against the {@link Settings} and opens the
 * replay files on the caller's thread, so a mistake is an {@link IllegalArgumentException} naming
 * it; then a feed thread starts a numbered {@link FeedPublisher} (which connects, and reconnects
 * after any drop, with bounded backoff), waits for its first connection (or the stop) and runs a
 * {@link FeedRunner} on itself. A tickerplant that restarts under the feed costs it nothing: the
 * publisher resends what the tickerplant had not journalled, and the status counts the reconnects.
 */
public final class FeedSupervisor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FeedSupervisor.class);
    private static final long CONNECT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long a feed that ended waits for the tickerplant to acknowledge what it sent before it lets go of it. */
    static final long DRAIN_MILLIS = 30_000;

    private final Settings settings;
    private final FeedCounters counters;
    private final java.util.concurrent.atomic.AtomicLong reconnectsBefore = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong tpChangesBefore = new java.util.concurrent.atomic.AtomicLong();
    private Job job;

    /**
     * Where the tickerplant is, how the feed connects, and the feed a request gets for every field it leaves out.
     *
     * @param connection the tickerplant, the feed's name, its buffer of unacknowledged updates and reconnect backoff
     * @param table   trade or quote
     * @param r       rows per update
     * @param u       updates per timer tick
     * @param t       timer period, ms
     * @param syms    number of synthetic syms
     * @param ex      extra float columns
     * @param seed    random seed of the synthetic feed
     * @param dataDir where the replay data sets live (the shared data folder)
     * @param hdbHost the HDB the {@code hdb} source replays from
     * @param hdbReplayPort its replay port
     */
    public record Settings(FeedPublisher.Settings connection, String table, int r, int u, int t, int syms, int ex, long seed,
                           Path dataDir, String hdbHost, int hdbReplayPort) {
        /** Defaults for the connection ({@link FeedPublisher.Settings#of}, feed name {@code feed-sim}). */
        public Settings(final String tpHost, final int tpPort, final String table, final int r, final int u, final int t,
                        final int syms, final int ex, final long seed, final Path dataDir, final String hdbHost, final int hdbReplayPort) {
            this(FeedPublisher.Settings.of(tpHost, tpPort, "feed-sim"), table, r, u, t, syms, ex, seed, dataDir, hdbHost, hdbReplayPort);
        }

        /** The tickerplants, {@code host:port,host:port}. */
        public String tp() {
            return TickerplantAddresses.format(connection.addresses());
        }
    }

    /** A feed that could not start because one is running (stop it first). */
    public static final class AlreadyRunning extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final String state;

        AlreadyRunning(final String state) {
            super("a feed is already running [state=" + state + "]");
            this.state = state;
        }

        /** State of the feed that runs. */
        public String state() {
            return state;
        }
    }

    /**
     * What the feed is doing.
     *
     * @param running         a feed has started and not ended
     * @param state           idle (none started), connecting, running, finished, stopped or failed
     * @param stopReason      why it ended (null while running)
     * @param tp              the tickerplant the feed is connected to or trying ({@code host:port}); idle: every one it may use
     *                        ({@code host:port,host:port})
     * @param parameters      the feed's parameters, defaults filled in (empty when idle)
     * @param connectAttempts connections tried, the first one included
     * @param lastError       the last tickerplant or connection error, or null
     * @param connected       connected to the tickerplant now (HELLO answered)
     * @param reconnects      connections made again after a drop (the tickerplant restarted, the network broke), this run
     * @param rowsDropped     rows refused by a full buffer under {@code tick.feed.when-full=fail} (0 under {@code block})
     * @param lastNumber      the feed's last update number
     * @param acknowledged    the last number the tickerplant acknowledged (journalled)
     * @param unackedUpdates  updates kept for resending, not yet acknowledged
     * @param unackedBytes    their bytes (at most {@code tick.feed.buffer})
     * @param resentUpdates   updates sent again after reconnects
     * @param tpChanges       moves to another of its tickerplants (a cluster's leader moved, a node was lost), this run
     * @param lastTpChange    the last of them, {@code from -> to (why)}, or null
     * @see FeedStatus for the counters
     */
    public record Status(boolean running, String state, String stopReason, String tp, Map<String, Object> parameters, long rowsSent,
                         long updatesSent, long bytesSent, double rowsPerSecond, long elapsedMillis, long backPressureWaits,
                         long behindScheduleMillis, long maxBehindScheduleMillis, long tpErrors, long connectAttempts,
                         String lastError, boolean connected, long reconnects, long rowsDropped, long lastNumber, long acknowledged,
                         long unackedUpdates, long unackedBytes, long resentUpdates, long tpChanges, String lastTpChange) {
    }

    private volatile TlsClient tls = TlsClient.OFF;

    /** Feeds and replays connect with TLS (feed-sim's {@code tick.tls.*}): the tickerplant's and the HDB's names verified. */
    public FeedSupervisor tls(final TlsClient client) {
        this.tls = client;
        return this;
    }

    public FeedSupervisor(final Settings settings, final FeedCounters counters) {
        this.settings = settings;
        this.counters = counters;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Starts a feed.
     *
     * @throws IllegalArgumentException a parameter is wrong or the replay data cannot be opened (the message says which)
     * @throws AlreadyRunning           a feed runs
     */
    public synchronized Status start(final FeedRequest req) {
        if (job != null && !job.ended()) {
            throw new AlreadyRunning(job.state());
        }
        final String source = lower(or(req.source(), "synthetic"));
        final boolean synthetic = "synthetic".equals(source);
        final boolean hdb = "hdb".equals(source);
        final String table = lower(or(req.table(), settings.table()));
        if (!hdb && !"trade".equals(table) && !"quote".equals(table)) {
            throw new IllegalArgumentException("unknown table, expected trade or quote [table=" + table + "]");
        }
        final int ex = or(req.ex(), settings.ex());
        if (ex < 0 || ex > 1024) {
            throw new IllegalArgumentException("ex (extra float columns) must be 0..1024 [ex=" + ex + "]");
        }
        final Pace pace = req.pace() == null ? (synthetic ? Pace.TIMER : Pace.RECORDED) : Pace.parse(req.pace());
        if (synthetic && pace == Pace.RECORDED) {
            throw new IllegalArgumentException("recorded pace needs a replay source (taq, algoseek or lobster) [source=synthetic]");
        }
        final long durationSeconds = or(req.durationSeconds(), 0L);
        if (durationSeconds < 0 || durationSeconds > TimeUnit.DAYS.toSeconds(365)) {
            throw new IllegalArgumentException("durationSeconds must be 0 (no limit) or positive [durationSeconds=" + durationSeconds
                + "]");
        }
        if (req.rowIds() != null && req.rowIds() && !synthetic) {
            throw new IllegalArgumentException("rowIds needs the synthetic source [source=" + source + "]");
        }
        final RunSettings asked = new RunSettings(or(req.r(), settings.r()), or(req.u(), settings.u()),
            or(req.t(), settings.t()), pace, or(req.speed(), 1.0), or(req.maxRows(), 0L), durationSeconds * 1000);
        // an HDB replay is paced by the HDB: the runner sends each frame as it comes
        final RunSettings run = hdb ? new RunSettings(asked.rowsPerUpdate(), asked.updatesPerTick(), asked.timerMillis(), Pace.MAX,
            asked.speed(), asked.maxRows(), asked.maxDurationMillis()) : asked;
        final Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("source", source);
        parameters.put("table", table);
        parameters.put("r", run.rowsPerUpdate());
        parameters.put("u", run.updatesPerTick());
        parameters.put("t", run.timerMillis());
        parameters.put("ex", ex);
        parameters.put("pace", pace.name().toLowerCase(Locale.ROOT));
        parameters.put("maxRows", run.maxRows());
        parameters.put("durationSeconds", durationSeconds);
        final TickSource tickSource = hdb ? openReplay(req, table, pace, asked, parameters)
            : openSource(req, source, table, ex, parameters);
        if (!synthetic) {
            parameters.put("speed", run.speed());
        }
        job = new Job(tickSource, run, parameters);
        job.start();
        LOG.info("feed started {}", parameters);
        return status();
    }

    private TickSource openSource(final FeedRequest req, final String source, final String table, final int ex,
                                  final Map<String, Object> parameters) {
        final boolean trade = "trade".equals(table);
        try {
            switch (source) {
                case "synthetic": {
                    final int syms = or(req.syms(), settings.syms());
                    final long seed = or(req.seed(), settings.seed());
                    final boolean stampTime = or(req.stampTime(), false);
                    parameters.put("syms", syms);
                    parameters.put("seed", seed);
                    final boolean rowIds = or(req.rowIds(), false);
                    parameters.put("stampTime", stampTime);
                    parameters.put("rowIds", rowIds);
                    return new SyntheticFeed(table, ex, syms, seed, NanoClock.SYSTEM, stampTime, rowIds);
                }
                case "taq":
                case "algoseek":
                case "lobster": {
                    final Path file = resolve(req.file(), FileSources.defaultPath(settings.dataDir(), source, table));
                    final List<String> symbols = req.symbols() == null ? List.of() : req.symbols();
                    final List<String> dates = req.dates() == null ? List.of() : req.dates();
                    parameters.put("file", file.toString());
                    if ("algoseek".equals(source)) {
                        parameters.put("symbols", symbols);
                        parameters.put("dates", dates);
                    }
                    return FileSources.open(source, table, file, symbols, dates, ex);
                }
                default:
                    throw new IllegalArgumentException("unknown source, expected synthetic, taq, algoseek, lobster or hdb [source=" + source
                        + "]");
            }
        } catch (final IOException e) {
            throw new IllegalArgumentException("cannot open the replay data [source=" + source + "]: " + e.getMessage(), e);
        }
    }

    /** The {@code hdb} source: asks the HDB's replay port for the dates, tables and syms; the HDB paces it. */
    private TickSource openReplay(final FeedRequest req, final String table, final Pace pace, final RunSettings run,
                                  final Map<String, Object> parameters) {
        if (req.from() == null || req.from().isBlank()) {
            throw new IllegalArgumentException("the hdb source needs from (yyyy-MM-dd), and to for more than one day");
        }
        final LocalDate from;
        final LocalDate to;
        try {
            from = LocalDate.parse(req.from().trim());
            to = req.to() == null || req.to().isBlank() ? from : LocalDate.parse(req.to().trim());
        } catch (final DateTimeParseException e) {
            throw new IllegalArgumentException("bad date, expected yyyy-MM-dd [from=" + req.from() + ", to=" + req.to() + "]", e);
        }
        final List<String> tables = req.tables() == null || req.tables().isEmpty() ? List.of(table) : req.tables();
        final List<String> symbols = req.symbols() == null ? List.of() : req.symbols();
        ControlFrames.Replay r = ControlFrames.Replay.of(tables, (int) from.toEpochDay(), (int) to.toEpochDay()).withSyms(symbols)
            .withRowsPerUpdate(run.rowsPerUpdate());
        if (pace == Pace.RECORDED) {
            r = r.withSpeed(run.speed());
        } else if (pace != Pace.MAX) {
            throw new IllegalArgumentException("the hdb source is paced by the HDB: pace recorded (with speed) or max [pace="
                + pace.name().toLowerCase(Locale.ROOT) + "]");
        }
        parameters.put("tables", tables);
        parameters.put("from", from.toString());
        parameters.put("to", to.toString());
        parameters.put("symbols", symbols);
        parameters.put("hdb", settings.hdbHost() + ":" + settings.hdbReplayPort());
        return HdbReplaySource.open(settings.hdbHost(), settings.hdbReplayPort(), settings.connection().token(), tls, r,
            Duration.ofSeconds(30));
    }

    private Path resolve(final String file, final Path dflt) {
        return (file == null || file.isBlank() ? dflt : settings.dataDir().resolve(file)).normalize();
    }

    /**
     * Stops the feed, if one runs, and waits for it to end: a numbered feed waits (up to 30 s) until the
     * tickerplant has acknowledged every update it sent, so what it generated is journalled when this returns.
     */
    public Status stop() {
        final Job j;
        synchronized (this) {
            j = job;
        }
        if (j != null) {
            j.stop();
            try {
                if (!j.awaitEnd(DRAIN_MILLIS + 10_000, TimeUnit.MILLISECONDS)) {
                    LOG.warn("feed did not stop in time [state={}]", j.state());
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return status();
    }

    public synchronized Status status() {
        final Job j = job;
        final FeedRunner runner = j == null ? null : j.runner;
        final FeedStatus s = runner == null ? null : runner.status();
        final FeedPublisher.Stats c = j == null ? null : j.publisher.stats();
        return new Status(j != null && !j.ended(), j == null ? "idle" : j.state(), s == null ? null : s.stopReason(),
            c == null ? settings.tp() : c.tp(), j == null ? Map.of() : j.parameters,
            s == null ? 0 : s.rowsSent(), s == null ? 0 : s.updatesSent(), s == null ? 0 : s.bytesSent(),
            s == null ? 0.0 : Math.round(s.rowsPerSecond() * 10) / 10.0, s == null ? 0 : s.elapsedMillis(),
            s == null ? 0 : s.backPressureWaits(), s == null ? 0 : s.behindScheduleMillis(), s == null ? 0 : s.maxBehindScheduleMillis(),
            s == null ? 0 : s.tpErrors(), c == null ? 0 : c.connectAttempts(),
            s != null && s.lastError() != null ? s.lastError() : j == null ? null : j.error(),
            c != null && c.connected(), c == null ? 0 : c.reconnects(), s == null ? 0 : s.rowsDropped(), c == null ? 0 : c.lastNumber(),
            c == null ? 0 : c.acked(), c == null ? 0 : c.bufferedUpdates(), c == null ? 0 : c.bufferedBytes(),
            c == null ? 0 : c.resentUpdates(), c == null ? 0 : c.tpChanges(), c == null ? null : c.lastTpChange());
    }

    /** Reconnects of every feed this supervisor ran (the {@code tick.feed.reconnects} gauge). */
    public long reconnectsTotal() {
        final Job j;
        synchronized (this) {
            j = job;
        }
        return reconnectsBefore.get() + (j == null || j.ended() ? 0 : j.publisher.stats().reconnects());
    }

    /** Moves to another tickerplant of every feed this supervisor ran (the {@code tick.feed.tp.changes} gauge). */
    public long tpChangesTotal() {
        final Job j;
        synchronized (this) {
            j = job;
        }
        return tpChangesBefore.get() + (j == null || j.ended() ? 0 : j.publisher.stats().tpChanges());
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
        final RunSettings run;
        final Map<String, Object> parameters;
        final CountDownLatch done = new CountDownLatch(1);
        volatile FeedRunner runner;
        final FeedPublisher publisher = new FeedPublisher(settings.connection(), null).tls(tls);
        volatile boolean stopRequested;
        volatile String error;
        volatile String ownState = "connecting";
        private Thread thread;

        Job(final TickSource source, final RunSettings run, final Map<String, Object> parameters) {
            this.source = source;
            this.run = run;
            this.parameters = Map.copyOf(parameters);
        }

        void start() {
            thread = new Thread(this, "feed-sim-" + parameters.get("source"));
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            boolean handedOver = false;
            try {
                publisher.start();
                while (!stopRequested && !publisher.awaitConnected(CONNECT_WAIT_NANOS)) {
                    if (publisher.isClosed()) {
                        throw new IllegalStateException("the tickerplant rejected the feed: " + publisher.failure());
                    }
                }
                if (stopRequested) {
                    ownState = "stopped";
                    return;
                }
                error = null;
                final FeedRunner r = new FeedRunner(source, publisher, run, NanoClock.SYSTEM, counters);
                runner = r;
                handedOver = true;
                if (stopRequested) {
                    r.stop();
                }
                r.run();
                if (settings.connection().numbered() && !publisher.isClosed()) {
                    // across reconnects too (close waits only while connected); what is left, close reports
                    publisher.awaitAcknowledged(TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS));
                }
                final FeedStatus s = r.status();
                if (source instanceof HdbReplaySource replay && replay.problem() != null) {
                    error = replay.problem();
                }
                LOG.info("feed ended [state={}, reason={}, rows={}, rowsPerSecond={}, lastNumber={}, acknowledged={}]", s.state(),
                    s.stopReason(), s.rowsSent(), Math.round(s.rowsPerSecond()), publisher.stats().lastNumber(), publisher.stats().acked());
            } catch (final RuntimeException e) {
                error = e.toString();
                ownState = "failed";
                LOG.warn("feed failed", e);
            } finally {
                if (!handedOver) {
                    source.close();
                }
                reconnectsBefore.addAndGet(publisher.stats().reconnects());
                tpChangesBefore.addAndGet(publisher.stats().tpChanges());
                publisher.close(Duration.ZERO);
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

        /** Why it failed, or, while it has not connected yet, that it keeps trying. */
        String error() {
            if (error != null || runner != null || !"connecting".equals(ownState)) {
                return error;
            }
            final FeedPublisher.Stats c = publisher.stats();
            return c.connectAttempts() == 0 ? null : "tickerplant not reachable yet [tp=" + settings.tp() + ", attempts="
                + c.connectAttempts() + "] (retrying with backoff up to "
                + settings.connection().reconnectMax().toMillis() + " ms)" + (c.lastError() == null ? "" : ": " + c.lastError());
        }

        String state() {
            final FeedRunner r = runner;
            return r != null ? r.status().state() : ownState;
        }
    }
}
