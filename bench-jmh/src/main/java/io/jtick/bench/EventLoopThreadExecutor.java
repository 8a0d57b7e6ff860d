package io.jtick.bench;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * JMH executor ({@code -Djmh.executor=CUSTOM -Djmh.executor.class=io.jtick.bench.EventLoopThreadExecutor})
 * whose benchmark threads are Netty {@code FastThreadLocalThread}s, like the event loops the
 * tickerplant and subscribers run on. On Netty 4.2 a plain thread gets no {@code Recycler} pooling
 * (every {@code ChannelOutboundBuffer.Entry} and pooled slice is a new object) and no pooled-allocator
 * thread cache, so a benchmark on JMH's default threads would measure allocation the engine never does.
 */
public final class EventLoopThreadExecutor extends ThreadPoolExecutor {
    /** The JVM options that select this executor in a fork. */
    public static final String[] JVM_ARGS = {"-Djmh.executor=CUSTOM",
        "-Djmh.executor.class=io.jtick.bench.EventLoopThreadExecutor"};

    public EventLoopThreadExecutor(final int maxThreads, final String prefix) {
        super(maxThreads, maxThreads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
            new DefaultThreadFactory(prefix, true));
    }
}
