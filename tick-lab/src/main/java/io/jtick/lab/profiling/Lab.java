package io.jtick.lab.profiling;

import io.jtick.lab.run.LabParams;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.wire.Transport;
import io.jtick.core.feed.FeedRunner;
import io.jtick.core.feed.FeedStatus;
import io.jtick.core.feed.RunSettings;
import io.jtick.core.feed.SyntheticFeed;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.EndOfDayHandler;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tp.SlowSubscribers;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One matrix entry's laboratory on loopback: a fresh {@link TickerplantServer} (own Netty thread,
 * Chronicle journal in a temporary directory that is deleted afterwards, the entry's publish mode,
 * timer and broadcast setting), N subscribers — each a {@link RealtimeDatabase} behind its own
 * {@link TickClient} connection and its own event-loop thread, subscribed one after the other so
 * the tickerplant writes to them in that order — and the synthetic feed on a thread of its own.
 *
 * <p>Tables start at the rows the entry will send, so no table grows (and copies) while measuring,
 * unless that is more than the subscribers' share of {@link #memoryBudget()} (a third of the
 * heap): then a subscriber drops its tables (an end of day with nothing to write) each time it
 * holds its share; that happens on its thread between updates, outside rdbupd, and is counted.
 */
final class Lab implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Lab.class);
    /** Bytes of rows all subscribers of one lab may hold together: a third of the heap, at least 64 MB. */
    static long memoryBudget() {
        return Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 3);
    }
    private static final Duration SUBSCRIBE_WAIT = Duration.ofSeconds(10);

    final LabParams params;
    final TickMetrics tpMetrics = new TickMetrics();
    final List<Sub> subs = new ArrayList<>();
    private final Path workDir;
    private final NanoClock clock;
    private final long seed;
    private final long expectedRows;
    private Path journalDir;
    private TickerplantServer server;
    private long tpThread = -1;
    private long tpTid = -1;
    private EventLoopGroup feedGroup;
    private FeedPublisher publisher;
    private FeedRunner runner;
    private Thread feedThread;
    private long feedIoThread = -1;

    /**
     * @param expectedRows rows the entry will send at most (sizes the subscribers' tables)
     */
    Lab(final LabParams params, final Path workDir, final NanoClock clock, final long seed, final long expectedRows) {
        this.params = params;
        this.workDir = workDir;
        this.clock = clock;
        this.seed = seed;
        this.expectedRows = expectedRows;
    }

    /** Starts the tickerplant, subscribes every subscriber and connects the feed (which does not send yet). */
    void start() throws IOException {
        Files.createDirectories(workDir);
        journalDir = Files.createTempDirectory(workDir, "lab-");
        final SchemaRegistry schemas = SchemaRegistry.builtIn(params.ex());
        final TickerplantSettings settings = TickerplantSettings.defaults(journalDir.resolve("journal")).withPort(0)
            .withMode(params.publishMode(), Duration.ofMillis(params.timerMillis())).withBroadcast(params.broadcast())
            // a subscriber past the backlog limit ends the entry as saturated (the paper's "more than this machine captures")
            .withSlowSubscribers(SlowSubscribers.DISCONNECT);
        server = new TickerplantServer(settings, schemas, clock, tpMetrics).start();
        tpThread = server.call(t -> Thread.currentThread().getId());
        tpTid = server.call(t -> SchedStat.currentTid());
        final TableSchema schema = params.schema();
        final long capRows = Math.max(10_000, memoryBudget() / ((long) params.subscribers() * (schema.rowWidth() + 4)));
        final int capacity = (int) Math.max(1024, Math.min(capRows, Math.min(expectedRows, Integer.MAX_VALUE - 16)));
        for (int k = 0; k < params.subscribers(); k++) {
            final Sub s = new Sub(k, server.port(), params.table(), clock, capRows, capacity);
            subs.add(s);
            s.start();
            final long deadline = System.nanoTime() + SUBSCRIBE_WAIT.toNanos();
            while (!s.ready || !s.client.isSubscribed()) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("subscriber did not subscribe within " + SUBSCRIBE_WAIT.toSeconds() + " s [subscriber="
                        + s.name + "]");
                }
                LockSupport.parkNanos(200_000);
            }
        }
        feedGroup = Transport.newGroup(1, "lab-feed-io");
        feedIoThread = threadOf(feedGroup);
        publisher = new FeedPublisher("127.0.0.1", server.port(), "lab-feed", feedGroup).connect(5_000);
    }

    /** The feed starts sending: u updates of r rows every t ms. */
    void startFeed() {
        startFeed(RunSettings.timer(params.r(), params.u(), params.t()));
    }

    /** The feed starts sending as {@code feed} says (the JIT warm-up sends at full speed). */
    void startFeed(final RunSettings feed) {
        final SyntheticFeed source = new SyntheticFeed(params.table(), params.ex(), params.syms(), seed, clock, false);
        runner = new FeedRunner(source, publisher, feed, clock, null);
        final Thread t = new Thread(runner, "lab-feed");
        t.setDaemon(true);
        feedThread = t;
        t.start();
    }

    /** Waits for a feed with a row or time limit to end on its own; true if it did. */
    boolean awaitFeedEnd(final long millis) throws InterruptedException {
        return runner.awaitEnd(millis, TimeUnit.MILLISECONDS);
    }

    /** Stops the feed and waits for its thread; returns its final status. */
    FeedStatus stopFeed() {
        runner.stop();
        try {
            runner.awaitEnd(10, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return runner.status();
    }

    FeedStatus feedStatus() {
        return runner.status();
    }

    /** True when the tickerplant dropped a subscriber for falling behind (the entry's rate is more than this machine takes). */
    boolean saturated() {
        return tpMetrics.counter("tick.tp.subscribers.disconnected|reason=slow").get() > 0;
    }

    /** What went wrong, or null: the feed failed or lost the tickerplant, or a subscriber lost its connection. */
    String problem() {
        final FeedStatus f = runner.status();
        if ("failed".equals(f.state())) {
            return "feed failed: " + (f.stopReason() != null ? f.stopReason() : f.lastError());
        }
        if (!publisher.isConnected()) {
            return "the feed's connection to the tickerplant was lost [tp=127.0.0.1:" + server.port() + "]";
        }
        for (final Sub s : subs) {
            if (s.disconnected) {
                return "subscriber lost its tickerplant connection [subscriber=" + s.name + (s.error == null ? "" : ", error=" + s.error)
                    + "]";
            }
        }
        return null;
    }

    TickerplantServer server() {
        return server;
    }

    /** The tickerplant thread's kernel thread id (-1: unknown), for {@link SchedStat}. */
    long tpTid() {
        return tpTid;
    }

    long tpThread() {
        return tpThread;
    }

    long feedThread() {
        final Thread t = feedThread;
        return t == null ? -1 : t.getId();
    }

    long feedIoThread() {
        return feedIoThread;
    }

    long tpRows() {
        return tpMetrics.counter("tick.tp.rows").get();
    }

    /** Clears every latency histogram (end of warm-up). */
    void resetLatencies() {
        tpMetrics.resetLatencies();
        for (final Sub s : subs) {
            s.metrics.resetLatencies();
        }
    }

    @Override
    public void close() {
        if (runner != null && feedThread != null) {
            stopFeed();
        }
        if (publisher != null) {
            publisher.close();
        }
        final List<Future<?>> shutdowns = new ArrayList<>();
        if (feedGroup != null) {
            shutdowns.add(feedGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS));
        }
        for (final Sub s : subs) {
            s.client.close();
            shutdowns.add(s.group.shutdownGracefully(0, 1, TimeUnit.SECONDS));
        }
        for (final Future<?> f : shutdowns) {
            f.awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
        if (journalDir != null) {
            deleteTree(journalDir);
        }
    }

    static long threadOf(final EventLoopGroup group) throws IOException {
        return call(group, () -> Thread.currentThread().getId());
    }

    /** What {@code what} answers on the group's (one) event-loop thread. */
    private static long call(final EventLoopGroup group, final java.util.concurrent.Callable<Long> what) throws IOException {
        try {
            return group.next().submit(what).get(10, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (final ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("event loop did not answer: " + e, e);
        }
    }

    private static void deleteTree(final Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(final Path dir, final IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (final IOException e) {
            LOG.warn("could not delete a lab journal [dir={}]: {}", root, e.toString());
        }
    }

    /** One subscriber: an RDB on its own connection and event-loop thread, counting what it receives. */
    static final class Sub implements TickListener {
        final String name;
        final TickMetrics metrics = new TickMetrics();
        final RealtimeDatabase rdb;
        final EventLoopGroup group;
        final TickClient client;
        private final long capRows;
        private long sinceClear;
        long threadId = -1;
        long tid = -1;
        volatile long rows;
        volatile long clears;
        volatile boolean disconnected;
        volatile boolean ready;
        volatile String error;

        /** Subscribes to the feed's table only: an RDB pre-sizes every table it is given. */
        Sub(final int k, final int port, final String table, final NanoClock clock, final long capRows, final int capacity) {
            this.name = "lab-rdb-" + (k + 1);
            this.capRows = capRows;
            this.rdb = new RealtimeDatabase(metrics, EndOfDayHandler.NONE, List.of(), capacity, Set.of());
            this.group = Transport.newGroup(1, name);
            this.client = new TickClient(TickClient.Settings.of("127.0.0.1", port, name).withTables(List.of(table)), this,
                rdb::lastSequence, group, clock);
        }

        void start() throws IOException {
            threadId = threadOf(group);
            tid = call(group, SchedStat::currentTid);
            client.start();
        }

        @Override
        public void onSubscribed(final ControlFrames.Subscribed subscribed) {
            rdb.onSubscribed(subscribed);
            ready = true;
        }

        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
            rdb.onUpdate(schema, update, receiveNanos);
            final int n = update.rowCount();
            rows = rows + n;
            sinceClear += n;
            if (sinceClear >= capRows) {
                rdb.onEndOfDay(0, rdb.lastSequence());
                sinceClear = 0;
                clears = clears + 1;
            }
        }

        @Override
        public void onCatchUpDone(final long sequence) {
            rdb.onCatchUpDone(sequence);
        }

        @Override
        public void onEndOfDay(final int epochDay, final long sequence) {
            rdb.onEndOfDay(epochDay, sequence);
        }

        @Override
        public void onError(final ErrorCode code, final String message) {
            error = code.tag() + ": " + message;
            rdb.onError(code, message);
        }

        @Override
        public void onDisconnected() {
            disconnected = true;
            rdb.onDisconnected();
        }
    }
}
