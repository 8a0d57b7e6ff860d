package io.jtick.core.replay;

import java.nio.file.Path;
import java.time.ZoneId;

/**
 * How the replay server runs (hdb-service: {@code tick.hdb.replay.*}).
 *
 * @param host            address the replay port binds to
 * @param port            the replay port (0 = any free port)
 * @param threads         event-loop threads serving consumers (each consumer stays on one)
 * @param defaultRowsPerUpdate rows per UPDATE frame when a request gives 0 (hdb-service: {@code tick.hdb.replay.batch-rows})
 * @param maxRowsPerUpdate    most rows per UPDATE frame a request may ask for ({@code tick.hdb.replay.max-batch-rows})
 * @param windowRows      rows a reader merges at a time (one sort); its buffers are sized by it
 * @param sharedFrames    encoded frames a shared stream keeps for its consumers; a consumer that falls further
 *                        behind than this reads on its own from then on
 * @param writeBufferLow  Netty low water mark of a consumer's outbound buffer, bytes
 * @param writeBufferHigh Netty high water mark: above it the consumer is not written to until it reads
 * @param paceQuantumNanos recorded pace: one frame spans at most this much wall time of recorded gaps
 * @param zone            zone of a time-of-day window when the request names none
 * @param scratchDir      where compressed columns of a stream are decoded to (sparse, memory-mapped files, deleted
 *                        when the stream ends)
 * @param stallMillis     how long a shared stream with a full ring waits for its slowest consumer to take a frame
 *                        before leaving it behind (it then reads on its own); a consumer that keeps reading still
 *                        takes frames in bursts as its socket buffers (several MB on loopback) drain, so this is well
 *                        above one drain
 */
public record ReplaySettings(String host, int port, int threads, int defaultRowsPerUpdate, int maxRowsPerUpdate,
                             int windowRows, int sharedFrames, int writeBufferLow, int writeBufferHigh, long paceQuantumNanos, ZoneId zone,
                             Path scratchDir, long stallMillis) {
    public static final int DEFAULT_ROWS_PER_UPDATE = 8192;
    public static final int DEFAULT_WINDOW_ROWS = 65_536;
    public static final int DEFAULT_SHARED_FRAMES = 64;
    public static final long DEFAULT_STALL_MILLIS = 500;

    /** Loopback, any port, the defaults; scratch under {@code root/.replay}. */
    public static ReplaySettings defaults(final Path root) {
        return new ReplaySettings("127.0.0.1", 0, Math.max(1, Runtime.getRuntime().availableProcessors()), DEFAULT_ROWS_PER_UPDATE,
            1 << 20, DEFAULT_WINDOW_ROWS, DEFAULT_SHARED_FRAMES, 1 << 20, 4 << 20, 1_000_000L, ZoneId.of("America/New_York"),
            root.resolve(".replay"), DEFAULT_STALL_MILLIS);
    }

    public ReplaySettings withPort(final int p) {
        return new ReplaySettings(host, p, threads, defaultRowsPerUpdate, maxRowsPerUpdate, windowRows, sharedFrames, writeBufferLow,
            writeBufferHigh, paceQuantumNanos, zone, scratchDir, stallMillis);
    }

    public ReplaySettings withThreads(final int n) {
        return new ReplaySettings(host, port, n, defaultRowsPerUpdate, maxRowsPerUpdate, windowRows, sharedFrames, writeBufferLow,
            writeBufferHigh, paceQuantumNanos, zone, scratchDir, stallMillis);
    }

    public ReplaySettings withWindowRows(final int rows) {
        return new ReplaySettings(host, port, threads, defaultRowsPerUpdate, maxRowsPerUpdate, rows, sharedFrames, writeBufferLow,
            writeBufferHigh, paceQuantumNanos, zone, scratchDir, stallMillis);
    }

    public ReplaySettings withSharedFrames(final int frames) {
        return new ReplaySettings(host, port, threads, defaultRowsPerUpdate, maxRowsPerUpdate, windowRows, frames, writeBufferLow,
            writeBufferHigh, paceQuantumNanos, zone, scratchDir, stallMillis);
    }

    public ReplaySettings withWriteBuffer(final int low, final int high) {
        return new ReplaySettings(host, port, threads, defaultRowsPerUpdate, maxRowsPerUpdate, windowRows, sharedFrames, low, high,
            paceQuantumNanos, zone, scratchDir, stallMillis);
    }

    public ReplaySettings withStallMillis(final long millis) {
        return new ReplaySettings(host, port, threads, defaultRowsPerUpdate, maxRowsPerUpdate, windowRows, sharedFrames, writeBufferLow,
            writeBufferHigh, paceQuantumNanos, zone, scratchDir, millis);
    }

    /** Checks every value; the message names the first that is wrong. */
    public ReplaySettings validate() {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("replay port must be 0..65535 [port=" + port + "]");
        }
        if (threads < 1 || threads > 256) {
            throw new IllegalArgumentException("replay threads must be 1..256 [threads=" + threads + "]");
        }
        if (maxRowsPerUpdate < 1 || defaultRowsPerUpdate < 1 || defaultRowsPerUpdate > maxRowsPerUpdate) {
            throw new IllegalArgumentException("tick.hdb.replay.batch-rows must be 1..max-batch-rows [batch-rows=" + defaultRowsPerUpdate
                + ", max-batch-rows=" + maxRowsPerUpdate + "]");
        }
        if (windowRows < 1024 || windowRows > (1 << 26)) {
            throw new IllegalArgumentException("window rows must be 1024..67108864 [windowRows=" + windowRows + "]");
        }
        if (sharedFrames < 2 || sharedFrames > 65_536) {
            throw new IllegalArgumentException("shared frames must be 2..65536 [sharedFrames=" + sharedFrames + "]");
        }
        if (writeBufferLow < 1 || writeBufferHigh < writeBufferLow) {
            throw new IllegalArgumentException("write buffer marks need 0 < low <= high [low=" + writeBufferLow + ", high="
                + writeBufferHigh + "]");
        }
        if (paceQuantumNanos < 1) {
            throw new IllegalArgumentException("pace quantum must be positive [nanos=" + paceQuantumNanos + "]");
        }
        if (stallMillis < 1 || stallMillis > 3_600_000) {
            throw new IllegalArgumentException("tick.hdb.replay.stall must be 1 ms..1 h [stallMillis=" + stallMillis + "]");
        }
        if (zone == null || scratchDir == null || host == null) {
            throw new IllegalArgumentException("zone, scratch directory and host are required");
        }
        return this;
    }
}
