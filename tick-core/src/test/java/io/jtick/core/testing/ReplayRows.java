package io.jtick.core.testing;

import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.Unpooled;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * Rows of a historical replay as text lines ({@code table|time|sym|col2|col3...}, values as
 * {@link Cells#cell} renders them), what a replay of some segments must send (in time order, equal
 * times by table in request order, then sym, then recorded order), and a consumer that keeps them.
 */
public final class ReplayRows {
    private ReplayRows() {
    }

    /** A key to sort expected rows with: time, then the table's place in the request, then sym, then arrival. */
    private record Keyed(long time, int table, String sym, int row, String line) {
    }

    /**
     * The lines a replay of {@code tables} (in request order, each in arrival order) must send, keeping
     * only the rows {@code keep[t]} accepts (null: all).
     */
    public static List<String> expected(final List<? extends TableSegment> tables, final List<IntPredicate> keep) {
        final List<Keyed> all = new ArrayList<>();
        for (int t = 0; t < tables.size(); t++) {
            final TableSegment s = tables.get(t);
            final IntPredicate k = keep == null ? null : keep.get(t);
            for (int r = 0; r < s.rowCount(); r++) {
                if (k == null || k.test(r)) {
                    all.add(new Keyed(Cells.time(s, r), t, Cells.sym(s, r), r, line(s, r)));
                }
            }
        }
        all.sort(Comparator.comparingLong(Keyed::time).thenComparingInt(Keyed::table).thenComparing(Keyed::sym)
            .thenComparingInt(Keyed::row));
        final List<String> out = new ArrayList<>(all.size());
        for (final Keyed x : all) {
            out.add(x.line());
        }
        return out;
    }

    /** One row of a segment as a line. */
    public static String line(final TableSegment s, final int row) {
        final StringBuilder sb = new StringBuilder(s.schema().name());
        for (int c = 0; c < s.schema().columnCount(); c++) {
            sb.append('|').append(Cells.cell(s, c, row));
        }
        return sb.toString();
    }

    /** One row of an update as a line. */
    public static String line(final TableSchema schema, final UpdateDecoder u, final int row) {
        final StringBuilder sb = new StringBuilder(schema.name());
        for (int c = 0; c < schema.columnCount(); c++) {
            sb.append('|').append(value(schema.type(c), u, c, row));
        }
        return sb.toString();
    }

    private static Object value(final ColumnType type, final UpdateDecoder u, final int c, final int row) {
        return switch (type) {
            case TIMESTAMP -> {
                final long nanos = u.int64(c, row);
                yield Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L)).toString();
            }
            case SYMBOL -> u.symString(u.symCode(row));
            case FLOAT64 -> u.float64(c, row);
            case FLOAT32 -> u.float32(c, row);
            case INT64 -> u.int64(c, row);
            case INT32 -> u.int32(c, row);
            case INT16 -> u.int16(c, row);
            case BYTE -> u.int8(c, row);
            case BOOL -> u.int8(c, row) != 0;
            case CHAR -> String.valueOf((char) (u.int8(c, row) & 0xff));
        };
    }

    /** A replay consumer keeping every row as a line, each frame's receive time and sequence, and how it ended. */
    public static final class Consumer implements TickListener {
        private final boolean keepRows;
        public final List<String> rows = Collections.synchronizedList(new ArrayList<>());
        /**
         * Rows received, an order-sensitive hash of them (of their lines when rows are kept, else of their
         * values: equal between consumers of the same replay), and rows whose time went backwards.
         */
        public volatile long count;
        public volatile long hash;
        public volatile long outOfOrder;
        private long lastTime = Long.MIN_VALUE;
        public final List<Long> frameNanos = Collections.synchronizedList(new ArrayList<>());
        public final List<Long> frameFirstTimes = Collections.synchronizedList(new ArrayList<>());
        public final List<Integer> frameRows = Collections.synchronizedList(new ArrayList<>());
        public final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        public volatile ControlFrames.Subscribed subscribed;
        public volatile ControlFrames.ReplayDone done;
        public volatile long lastSequence;
        public volatile long sequenceGaps;
        private final CountDownLatch ended = new CountDownLatch(1);

        public Consumer() {
            this(true);
        }

        /** @param keepRows false: keep only the count, hash and order check (large replays) */
        public Consumer(final boolean keepRows) {
            this.keepRows = keepRows;
        }

        @Override
        public void onSubscribed(final ControlFrames.Subscribed s) {
            subscribed = s;
        }

        private final UpdateDecoder copy = new UpdateDecoder();

        /**
         * Reads a copy of the frame on a plain heap buffer: the frame's own buffer is leak-tracked at the
         * paranoid level the tests run with, where every read of it records a stack trace.
         */
        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder frame, final long receiveNanos) {
            final byte[] bytes = new byte[frame.frameLength()];
            frame.buffer().getBytes(frame.offset(), bytes);
            final UpdateDecoder u = copy.wrap(Unpooled.wrappedBuffer(bytes), 0);
            if (u.sequence() != lastSequence + u.rowCount()) {
                sequenceGaps++;
            }
            lastSequence = u.sequence();
            frameNanos.add(System.nanoTime());
            frameFirstTimes.add(u.timestamp(0));
            frameRows.add(u.rowCount());
            long h = hash;
            final int[] symHashes = keepRows ? null : symHashes(u);
            for (int r = 0; r < u.rowCount(); r++) {
                final long t = u.timestamp(r);
                if (t < lastTime) {
                    outOfOrder++;
                }
                lastTime = t;
                if (keepRows) {
                    final String line = line(schema, u, r);
                    h = hash(h, line);
                    rows.add(line);
                } else {
                    h = h * 1_000_003L + t;
                    h = h * 1_000_003L + symHashes[u.symCode(r)];
                    for (int c = 2; c < schema.columnCount(); c++) {
                        h = h * 1_000_003L + (long) u.number(schema, c, r);
                    }
                }
            }
            hash = h;
            count = count + u.rowCount();
        }

        @Override
        public void onReplayDone(final ControlFrames.ReplayDone d) {
            done = d;
        }

        @Override
        public void onError(final ErrorCode code, final String message) {
            errors.add(code.tag() + ": " + message);
        }

        @Override
        public void onDisconnected() {
            ended.countDown();
        }

        private static int[] symHashes(final UpdateDecoder u) {
            final int[] out = new int[u.symCount()];
            for (int i = 0; i < out.length; i++) {
                out[i] = u.symString(i).hashCode();
            }
            return out;
        }

        /** Waits until the HDB closed the connection (after REPLAY_DONE or an ERROR). */
        public Consumer awaitEnd(final Duration timeout) throws InterruptedException {
            if (!ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("replay did not end within " + timeout + " [rows=" + rows.size() + ", errors=" + errors + "]");
            }
            return this;
        }
    }

    /** Folds a line into an order-sensitive hash. */
    public static long hash(final long h, final String line) {
        return h * 1_000_003L + line.hashCode();
    }

    /** The hash of lines in order, as {@link Consumer#hash} computes it. */
    public static long hash(final List<String> lines) {
        long h = 0;
        for (final String l : lines) {
            h = hash(h, l);
        }
        return h;
    }

    /** Runs one replay to its end on a client of its own and returns what it received. */
    public static Consumer replay(final int port, final ControlFrames.Replay request) throws InterruptedException {
        return replay(port, null, request);
    }

    /** A replay whose HELLO presents {@code token} (null: none). */
    public static Consumer replay(final int port, final String token, final ControlFrames.Replay request) throws InterruptedException {
        final Consumer c = new Consumer();
        try (TickClient client = TickClient.replay(TickClient.Settings.of("127.0.0.1", port, "test-consumer").withToken(token), request,
            c, null, NanoClock.SYSTEM)) {
            client.start();
            c.awaitEnd(Duration.ofSeconds(60));
        }
        return c;
    }
}
