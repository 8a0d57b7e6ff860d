package io.jtick.core.testing;

import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Netty's leak detector for {@link ByteBuf}, counting: every tracked buffer (all of them at the
 * paranoid level) is registered while it lives and removed when it is released, so {@link LeakCheck}
 * can list exactly the buffers a test allocated and did not release, without waiting for a GC.
 * Installed by {@link LeakCheckSession} before Netty creates its detector.
 */
final class CountingLeakDetector<T> extends ResourceLeakDetector<T> {
    private static final AtomicLong SERIAL = new AtomicLong();
    private static final Set<Tracked<?>> LIVE = ConcurrentHashMap.newKeySet();
    private static volatile boolean countingByteBufs;

    private CountingLeakDetector(final Class<?> resourceType, final int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** Makes Netty create this detector for buffers; must run before Netty's first buffer class loads. */
    static void install() {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new Factory());
    }

    /** True when Netty's buffers are tracked by this detector. */
    static boolean counting() {
        return countingByteBufs;
    }

    /** A mark: buffers tracked from now on have a serial at or above it. */
    static long mark() {
        return SERIAL.get();
    }

    /** Buffers tracked since {@code mark} and not released, each described by Netty's access records. */
    static List<String> liveSince(final long mark) {
        final List<String> out = new ArrayList<>();
        for (final Tracked<?> t : LIVE) {
            if (t.serial >= mark) {
                out.add(t.delegate.toString());
            }
        }
        return out;
    }

    @Override
    public ResourceLeakTracker<T> track(final T obj) {
        return counted(super.track(obj));
    }

    @Override
    public ResourceLeakTracker<T> trackForcibly(final T obj) {
        return counted(super.trackForcibly(obj));
    }

    private static <T> ResourceLeakTracker<T> counted(final ResourceLeakTracker<T> delegate) {
        if (delegate == null) {
            return null;
        }
        final Tracked<T> t = new Tracked<>(delegate, SERIAL.getAndIncrement());
        LIVE.add(t);
        return t;
    }

    private static final class Tracked<T> implements ResourceLeakTracker<T> {
        final ResourceLeakTracker<T> delegate;
        final long serial;

        Tracked(final ResourceLeakTracker<T> delegate, final long serial) {
            this.delegate = delegate;
            this.serial = serial;
        }

        @Override
        public void record() {
            delegate.record();
        }

        @Override
        public void record(final Object hint) {
            delegate.record(hint);
        }

        @Override
        public boolean close(final T trackedObject) {
            final boolean closed = delegate.close(trackedObject);
            if (closed) {
                LIVE.remove(this);
            }
            return closed;
        }

        @Override
        public Throwable getCloseStackTraceIfAny() {
            return delegate.getCloseStackTraceIfAny();
        }
    }

    private static final class Factory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <R> ResourceLeakDetector<R> newResourceLeakDetector(final Class<R> resource, final int samplingInterval,
                                                                   final long maxActive) {
            if (resource == ByteBuf.class) {
                countingByteBufs = true;
                return new CountingLeakDetector<>(resource, samplingInterval);
            }
            return new ResourceLeakDetector<>(resource, samplingInterval);
        }
    }
}
