package io.jtick.core.time;

import org.agrona.concurrent.OffsetEpochNanoClock;

/** Epoch time in nanoseconds; injected so tests can drive end of day and time stamps. */
@FunctionalInterface
public interface NanoClock {
    /**
     * Wall clock without allocation: Agrona's {@link OffsetEpochNanoClock}, the wall clock sampled
     * once at start and advanced by {@code System.nanoTime()} ({@code Instant.now()} allocates on every
     * call, which the TP benchmark showed as bytes per update). It does not follow later wall-clock
     * steps (NTP slews of the order of ppm): fine for stamps and end of day, documented in docs/operations.md.
     */
    NanoClock SYSTEM = new OffsetEpochNanoClock()::nanoTime;

    long epochNanos();
}
