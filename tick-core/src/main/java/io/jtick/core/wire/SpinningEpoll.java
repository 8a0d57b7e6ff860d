package io.jtick.core.wire;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.SelectStrategy;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.util.IntSupplier;

/**
 * Netty's epoll event loop with spin-then-park idling: once it has handled its I/O and tasks, the loop
 * polls ({@code epoll_wait} with no timeout) for up to {@code spinNanos} before it blocks in
 * {@code epoll_wait}. An event that arrives within the spin is handled without a wake-up, and a task
 * another thread gives it meanwhile is seen at once, without the eventfd write that wakes a blocked
 * loop ({@link IoHandlerContext#canBlock} is asked on every poll). Every 8th poll yields the CPU, so
 * a spinning loop gives way to whatever else is runnable on its core. The cost is CPU: up to
 * {@code spinNanos} of it after each batch of work. Agrona's {@code BackoffIdleStrategy} and a Chronicle
 * tailer idle the same way; Netty's own {@code BUSY_WAIT} spins without end.
 */
final class SpinningEpoll implements IoHandler {
    private final IoHandler epoll;
    private final Spin spin;

    private SpinningEpoll(final IoHandler epoll, final Spin spin) {
        this.epoll = epoll;
        this.spin = spin;
    }

    /** Loops that spin up to {@code spinNanos} before they block. */
    static IoHandlerFactory factory(final long spinNanos) {
        return executor -> {
            final Spin s = new Spin(spinNanos);
            return new SpinningEpoll(EpollIoHandler.newFactory(0, () -> s).newHandler(executor), s);
        };
    }

    @Override
    public void initialize() {
        epoll.initialize();
    }

    @Override
    public int run(final IoHandlerContext context) {
        spin.context = context;
        return epoll.run(context);
    }

    @Override
    public void prepareToDestroy() {
        epoll.prepareToDestroy();
    }

    @Override
    public void destroy() {
        epoll.destroy();
    }

    @Override
    public IoRegistration register(final IoHandle handle) throws Exception {
        return epoll.register(handle);
    }

    @Override
    public void wakeup() {
        epoll.wakeup();
    }

    @Override
    public boolean isCompatible(final Class<? extends IoHandle> handleType) {
        return epoll.isCompatible(handleType);
    }

    /** The select strategy of one loop: poll until an event, a task or the end of the spin, then block. */
    private static final class Spin implements SelectStrategy {
        private final long spinNanos;
        /** The loop's context, set before each {@link #calculateStrategy} (same thread). */
        IoHandlerContext context;

        Spin(final long spinNanos) {
            this.spinNanos = spinNanos;
        }

        @Override
        public int calculateStrategy(final IntSupplier selectNow, final boolean hasTasks) throws Exception {
            if (hasTasks) {
                return selectNow.get();
            }
            final long end = System.nanoTime() + spinNanos;
            int polls = 0;
            do {
                final int ready = selectNow.get();
                if (ready > 0 || !context.canBlock()) {
                    return ready;
                }
                if ((++polls & 7) == 0) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            } while (System.nanoTime() - end < 0);
            return SelectStrategy.SELECT;
        }
    }
}
