package io.jtick.core.util;

/** Epoch time in nanoseconds; injected so tests can drive end of day and time stamps. */
@FunctionalInterface
public interface NanoClock {
    /** Wall clock: epoch nanoseconds (microsecond resolution on most Linux JVMs). */
    NanoClock SYSTEM = () -> {
        final java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };

    long epochNanos();
}
