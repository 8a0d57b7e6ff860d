package io.jtick.core.testing;

import java.util.ArrayList;
import java.util.List;

/** Closes what a test opened, last opened first (register with {@link #track}, close in {@code @AfterEach}). */
public final class Closer implements AutoCloseable {
    private final List<AutoCloseable> open = new ArrayList<>();

    public <T extends AutoCloseable> T track(final T c) {
        open.add(c);
        return c;
    }

    /** Forgets a resource the test already closed itself. */
    public void forget(final AutoCloseable c) {
        open.remove(c);
    }

    @Override
    public void close() throws Exception {
        for (int k = open.size() - 1; k >= 0; k--) {
            open.get(k).close();
        }
        open.clear();
    }
}
