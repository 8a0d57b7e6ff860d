package io.jtick.core.replay;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.wire.ErrorCode;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** Every {@code tick.hdb.replay.*} metric (docs/metrics.md), registered once; updated per frame, never per row. */
final class ReplayCounters {
    final AtomicLong rows;
    final AtomicLong frames;
    final AtomicLong bytes;
    final AtomicLong encodedFrames;
    final AtomicLong encodedRows;
    final AtomicLong started;
    final AtomicLong complete;
    final AtomicLong cancelled;
    final AtomicLong failed;
    final AtomicLong disconnected;
    final AtomicLong detached;
    final LatencyStats encode;
    final LatencyStats window;
    private final Map<ErrorCode, AtomicLong> errors = new EnumMap<>(ErrorCode.class);
    private final TickMetrics metrics;

    ReplayCounters(final TickMetrics metrics) {
        this.metrics = metrics;
        rows = metrics.counter("tick.hdb.replay.rows");
        frames = metrics.counter("tick.hdb.replay.frames");
        bytes = metrics.counter("tick.hdb.replay.bytes");
        encodedFrames = metrics.counter("tick.hdb.replay.encoded.frames");
        encodedRows = metrics.counter("tick.hdb.replay.encoded.rows");
        started = metrics.counter("tick.hdb.replay.started");
        complete = metrics.counter("tick.hdb.replay.ended|status=complete");
        cancelled = metrics.counter("tick.hdb.replay.ended|status=cancelled");
        failed = metrics.counter("tick.hdb.replay.ended|status=failed");
        disconnected = metrics.counter("tick.hdb.replay.ended|status=disconnected");
        detached = metrics.counter("tick.hdb.replay.detached");
        encode = metrics.latency("tick.hdb.replay.encode", "read, merge and encode of one replay frame (shared frames once)");
        window = metrics.latency("tick.hdb.replay.window", "read and time-sort of one replay window of rows");
        for (final ErrorCode c : new ErrorCode[] {ErrorCode.MALFORMED_FRAME, ErrorCode.UNSUPPORTED_VERSION, ErrorCode.UNKNOWN_TABLE,
            ErrorCode.BAD_REPLAY, ErrorCode.UNEXPECTED_MESSAGE, ErrorCode.OVERSIZED_FRAME, ErrorCode.TRUNCATED_FRAME}) {
            errors.put(c, metrics.counter("tick.hdb.replay.errors|code=" + c.tag()));
        }
    }

    void error(final ErrorCode code) {
        errors.computeIfAbsent(code, c -> metrics.counter("tick.hdb.replay.errors|code=" + c.tag())).incrementAndGet();
    }

    long errors(final ErrorCode code) {
        final AtomicLong a = errors.get(code);
        return a == null ? 0 : a.get();
    }

    void gauges(final LongSupplier active, final LongSupplier streams, final LongSupplier scratchKept) {
        metrics.gauge("tick.hdb.replay.active", active);
        metrics.gauge("tick.hdb.replay.streams", streams);
        metrics.gauge("tick.hdb.replay.scratch.kept.bytes", scratchKept);
    }
}
