package io.jtick.core.journal;

import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.WriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;

/**
 * Releases a queue's write lock that this process holds after a failed write. Chronicle unlocks a
 * dead process's lock by itself (a tickerplant killed in the middle of a write), but not one its own
 * process holds: a write that faulted on a full volume leaves it taken, and every later append would
 * wait for it and time out. {@code SingleChronicleQueue.writeLock()} is not public, hence reflection;
 * if a Chronicle version lacks it, this logs once and does nothing (the journal then fails until restart).
 */
final class ChronicleLocks {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleLocks.class);
    private static final Method WRITE_LOCK = writeLockMethod();

    private ChronicleLocks() {
    }

    private static Method writeLockMethod() {
        try {
            final Method m = SingleChronicleQueue.class.getDeclaredMethod("writeLock");
            m.setAccessible(true);
            return m;
        } catch (final ReflectiveOperationException | RuntimeException e) {
            LOG.warn("cannot reach Chronicle's write lock; a journal write that fails will need a restart: {}", e.toString());
            return null;
        }
    }

    /** Unlocks {@code queue}'s write lock if this process holds it. */
    static void releaseWriteLock(final SingleChronicleQueue queue) {
        if (WRITE_LOCK == null) {
            return;
        }
        try {
            final WriteLock lock = (WriteLock) WRITE_LOCK.invoke(queue);
            if (lock.locked() && lock.isLockedByCurrentProcess(pid -> { })) {
                final Method force = lock.getClass().getMethod("forceUnlock");
                force.invoke(lock);
                LOG.warn("released the journal's write lock after a failed write [queue={}]", queue.file());
            }
        } catch (final ReflectiveOperationException | RuntimeException e) {
            LOG.warn("cannot release the journal's write lock after a failed write [queue={}]: {}", queue.file(), e.toString());
        }
    }
}
