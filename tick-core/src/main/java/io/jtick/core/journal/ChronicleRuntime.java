package io.jtick.core.journal;

import net.openhft.chronicle.core.io.BackgroundResourceReleaser;

import java.lang.invoke.MethodHandles;

/**
 * Chronicle's process-wide runtime: the resource-releasing thread and the JVM shutdown hook that its
 * {@code BackgroundResourceReleaser} starts and registers when it is first used, which is when the
 * process makes its first mapped file. Registering a shutdown hook fails once the JVM's shutdown has
 * begun, and the class is then unusable for the rest of the process ({@link Journal#loadRuntime}).
 */
final class ChronicleRuntime {
    private ChronicleRuntime() {
    }

    /** Initializes Chronicle's releaser (its thread and shutdown hook) now, if it is not yet. */
    static void load() {
        try {
            MethodHandles.lookup().ensureInitialized(BackgroundResourceReleaser.class);
        } catch (final IllegalAccessException e) {
            throw new IllegalStateException("cannot initialize Chronicle's resource releaser", e);
        }
    }
}
