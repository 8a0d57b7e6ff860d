package io.jtick.core.client;

import io.netty.channel.Channel;
import io.netty.channel.WriteBufferWaterMark;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A feed's back-pressure, always a return value: a numbered feed's {@link ResendBuffer} full (the
 * {@link FeedPublisher.WhenFull} policy: {@code BLOCK} waits for acknowledgements up to the block
 * timeout, {@code FAIL} answers at once; {@code refusedFull} counts the refusals), a protocol 1
 * feed's socket over its high-water mark ({@link #WATER_MARK}).
 */
final class BackPressure {
    /** The feed socket's write buffer water marks: a protocol 1 send is refused above the high one. */
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(4 << 20, 16 << 20);

    private final boolean block;
    private final long blockNanos;
    /** Written under the publisher's monitor only. */
    private volatile long refusedFull;

    BackPressure(final FeedPublisher.Settings settings) {
        this.block = settings.whenFull() == FeedPublisher.WhenFull.BLOCK;
        this.blockNanos = settings.blockTimeout().toNanos();
    }

    /**
     * Caller holds {@code publisher}'s monitor. Waits for room for {@code bytes} in {@code buffer} (and,
     * before the first connection, for the numbering) under the policy; false when the frames must be refused.
     */
    boolean waitForRoom(final FeedPublisher publisher, final ResendBuffer buffer, final int bytes) {
        long deadline = 0;
        while (true) {
            if (publisher.isClosed()) {
                return false;
            }
            if (buffer.hasRoom(bytes)) {
                return true;
            }
            if (!block) {
                return refused(buffer);
            }
            final long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + blockNanos;
            }
            if (now >= deadline) {
                return refused(buffer);
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(publisher, deadline - now);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** Counted as refused for a full buffer only once the numbering is known (before, it is the first connection being waited for). */
    private boolean refused(final ResendBuffer buffer) {
        if (buffer.numberingKnown()) {
            refusedFull++;
        }
        return false;
    }

    /**
     * Waits (parking) until a send could be taken: numbered, until the buffer has room (and the
     * numbering is known); protocol 1, until connected and writable. False on timeout, close or failure.
     */
    boolean awaitWritable(final FeedPublisher publisher, final ResendBuffer buffer, final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        final boolean numbered = publisher.settings().numbered();
        while (true) {
            if (publisher.isClosed()) {
                return false;
            }
            if (numbered) {
                synchronized (publisher) {
                    if (buffer.belowLimit()) {
                        return true;
                    }
                }
            } else {
                final Channel ch = publisher.channel();
                if (ch == null || !ch.isActive()) {
                    return false;
                }
                if (ch.isWritable()) {
                    return true;
                }
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(50_000);
        }
    }

    /** Protocol 1: the socket takes a send (connected and under its high-water mark). */
    static boolean writable(final Channel ch) {
        return ch != null && ch.isActive() && ch.isWritable();
    }

    /** Sends refused because the buffer stayed full. */
    long refusedFull() {
        return refusedFull;
    }
}
