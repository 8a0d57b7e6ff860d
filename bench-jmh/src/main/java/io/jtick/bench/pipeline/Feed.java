package io.jtick.bench.pipeline;

import io.jtick.bench.TradeFrames;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The feed, on the caller's thread, the same for every system: builds trade update frames
 * ({@link TradeFrames}: row k of the run carries k in its {@code size} column, its feed time is
 * stamped as it is encoded) and hands them to the system. As fast as possible, frames are packed
 * into buffers of up to {@link Phase#batchBytes()} (what the feed writes at once); paced, each
 * update goes alone at start + k × period (no drift).
 */
final class Feed {
    private final Phase phase;
    private final TableSchema schema;
    private final NanoClock clock;
    private final byte[][] syms;
    private final UpdateEncoder encoder = new UpdateEncoder();
    private final int maxFrame;

    Feed(final Phase phase, final TableSchema schema, final int symCount, final NanoClock clock) {
        this.phase = phase;
        this.schema = schema;
        this.clock = clock;
        this.syms = TradeFrames.syms(symCount);
        this.maxFrame = TradeFrames.maxLength(schema, phase.r(), syms);
    }

    /** Sends rows {@code first .. first+count-1}. */
    void send(final PipelineSystem system, final long first, final long count) {
        if (phase.paced()) {
            paced(system, first, count);
        } else {
            batched(system, first, count);
        }
    }

    private void paced(final PipelineSystem system, final long first, final long count) {
        final long period = 1_000_000_000L / phase.rate();
        final long start = System.nanoTime();
        long k = 0;
        for (long row = first; row < first + count; row += phase.r(), k++) {
            final long due = start + k * period;
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            writable(system);
            final ByteBuf buf = system.alloc().directBuffer(maxFrame);
            final long now = clock.epochNanos();
            TradeFrames.encode(encoder, buf, schema, phase.r(), row, syms, now, now);
            sent(system, buf, 1);
        }
    }

    private void batched(final PipelineSystem system, final long first, final long count) {
        final long end = first + count;
        final int perBatch = Math.max(1, phase.batchBytes() / maxFrame);
        long row = first;
        while (row < end) {
            writable(system);
            final ByteBuf buf = system.alloc().directBuffer(perBatch * maxFrame);
            int frames = 0;
            for (; frames < perBatch && row < end; frames++, row += phase.r()) {
                final long now = clock.epochNanos();
                TradeFrames.encode(encoder, buf, schema, phase.r(), row, syms, now, now);
            }
            sent(system, buf, frames);
        }
    }

    private static void sent(final PipelineSystem system, final ByteBuf buf, final int frames) {
        if (!system.send(buf, frames)) {
            throw new IllegalStateException("send refused [system=" + system.name() + ", failure=" + system.failure() + "]");
        }
    }

    private static void writable(final PipelineSystem system) {
        if (!system.awaitWritable(TimeUnit.SECONDS.toNanos(30))) {
            throw new IllegalStateException("transport not writable for 30 s [system=" + system.name() + ", failure="
                + system.failure() + "]");
        }
    }
}
