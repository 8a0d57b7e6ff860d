package io.jtick.bench.pipeline;

import io.jtick.bench.TickerplantBenchmark;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.UnsafeApi;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Raw Chronicle Queue, the physical floor of a journalled path: the feed thread appends each update
 * frame as one document (the bytes the TP journals, written the way its journal writes them), and
 * one tailer thread per subscriber reads each document, copies it out of the mapped file into its
 * one reused frame buffer (a memcpy, as jtick's journal reader does; Netty cannot wrap a raw address
 * without reflective access this JVM does not grant) and hands it to its receiver. No validation,
 * no sequence stamping, no sockets: what is left is the journal itself and a thread hand-off through
 * shared memory. Tailers poll with a back-off idle strategy
 * (spin, yield, then park 1–100 µs), since a busy-spinning thread on two shared cores starves the
 * others.
 */
final class ChronicleSystem extends PipelineSystem {
    private final Path root;
    private final List<Thread> tailers = new ArrayList<>();
    private volatile boolean running = true;
    private volatile String failure;
    private Path dir;
    private ChronicleQueue queue;
    private ExcerptAppender appender;

    /** @param root parent of the queue's temp directory, null for the system's temp directory */
    ChronicleSystem(final TableSchema schema, final boolean insert, final Path root, final NanoClock clock) {
        super(schema, insert, clock);
        this.root = root;
    }

    @Override
    String name() {
        return "chronicle";
    }

    @Override
    void start(final Phase phase, final List<Receiver> receivers) throws Exception {
        dir = root == null ? Files.createTempDirectory("jtick-chronicle") : Files.createTempDirectory(root, "jtick-chronicle");
        queue = ChronicleQueue.singleBuilder(dir).rollCycle(RollCycles.FAST_DAILY).build();
        appender = queue.createAppender();
        final CountDownLatch ready = new CountDownLatch(receivers.size());
        for (int i = 0; i < receivers.size(); i++) {
            final Receiver r = receivers.get(i);
            final Thread t = new Thread(() -> tail(r, ready), "chronicle-tailer-" + i);
            t.setDaemon(true);
            tailers.add(t);
            t.start();
        }
        if (!ready.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("chronicle tailers not ready within 10 s [dir=" + dir + "]");
        }
    }

    private void tail(final Receiver receiver, final CountDownLatch ready) {
        final IdleStrategy idle = new BackoffIdleStrategy(100, 10, TimeUnit.MICROSECONDS.toNanos(1),
            TimeUnit.MICROSECONDS.toNanos(100));
        final UpdateDecoder decoder = new UpdateDecoder();
        ByteBuf frame = PooledByteBufAllocator.DEFAULT.directBuffer(64 * 1024);
        try (ExcerptTailer tailer = queue.createTailer()) {
            tailer.toStart();
            ready.countDown();
            while (running) {
                int work = 0;
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (dc.isPresent()) {
                        final Bytes<?> bytes = dc.wire().bytes();
                        final int length = (int) bytes.readRemaining();
                        if (frame.capacity() < length) {
                            frame.release();
                            frame = PooledByteBufAllocator.DEFAULT.directBuffer(length);
                        }
                        UnsafeApi.copyMemory(bytes.addressForRead(bytes.readPosition()), frame.memoryAddress(), length);
                        receiver.onUpdate(decoder.wrap(frame, 0), receiver.now());
                        work = 1;
                    }
                }
                idle.idle(work);
            }
        } catch (final RuntimeException e) {
            failure = "tailer failed: " + e;
        } finally {
            frame.release();
        }
    }

    @Override
    boolean send(final ByteBuf frames, final int count) {
        try {
            int at = frames.readerIndex();
            final boolean direct = frames.hasMemoryAddress();
            for (int k = 0; k < count; k++) {
                final int length = frames.getIntLE(at);
                try (DocumentContext dc = appender.writingDocument()) {
                    if (direct) {
                        dc.wire().bytes().unsafeWrite(frames.memoryAddress() + at, length);
                    } else {
                        final byte[] copy = new byte[length];
                        frames.getBytes(at, copy);
                        dc.wire().bytes().write(copy);
                    }
                }
                at += length;
            }
            return true;
        } finally {
            frames.release();
        }
    }

    @Override
    String failure() {
        return failure;
    }

    @Override
    public void close() throws Exception {
        running = false;
        try {
            for (final Thread t : tailers) {
                t.join(TimeUnit.SECONDS.toMillis(10));
            }
            if (appender != null) {
                appender.close();
            }
            if (queue != null) {
                queue.close();
            }
        } finally {
            if (dir != null) {
                TickerplantBenchmark.deleteTree(dir);
            }
        }
    }
}
