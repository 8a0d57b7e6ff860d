package io.jtick.core.testing;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Frame builders and condition waits shared by core tests (no sleeps: wait for a condition with a deadline). */
public final class TestSupport {
    private TestSupport() {
    }

    /** Waits until {@code condition} holds, failing with {@code what} after {@code timeout}. */
    public static void await(final String what, final Duration timeout, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(2);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /**
     * G1's full collections ({@code System.gc()} among them), counted apart from the young ones; the test
     * is skipped where the collector is not G1.
     */
    public static GarbageCollectorMXBean g1FullCollections() {
        final GarbageCollectorMXBean full = ManagementFactory.getGarbageCollectorMXBeans().stream()
            .filter(b -> b.getName().equals("G1 Old Generation")).findFirst().orElse(null);
        assumeTrue(full != null, "the full collections are counted apart from the young ones only under G1 here");
        return full;
    }

    /**
     * Appends one trade update to {@code buf}: row r has sym {@code syms[r]}, price {@code base + r},
     * size {@code id * 1000 + r} so a test can tell every row apart, and time {@code timeNanos + r}.
     */
    public static void trade(final ByteBuf buf, final TableSchema schema, final long id, final long timeNanos, final String... syms) {
        final UpdateEncoder enc = new UpdateEncoder();
        int dictBytes = 0;
        final Map<String, Integer> dict = new LinkedHashMap<>();
        for (final String s : syms) {
            if (!dict.containsKey(s)) {
                dict.put(s, dict.size());
                dictBytes += 1 + s.length();
            }
        }
        enc.wrap(buf, schema, syms.length, dictBytes);
        for (final String s : dict.keySet()) {
            enc.addSym(s.getBytes(StandardCharsets.US_ASCII));
        }
        for (int r = 0; r < syms.length; r++) {
            enc.timestamp(0, r, timeNanos + r);
            enc.sym(r, dict.get(syms[r]));
            enc.float64(2, r, 100.0 + id + r / 100.0);
            enc.int64(3, r, id * 1000 + r);
            enc.int8(4, r, 'A' + (r % 26));
        }
        enc.feedTime(timeNanos);
        enc.finish();
    }

    public static ByteBuf tradeFrame(final TableSchema schema, final long id, final String... syms) {
        final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(256);
        trade(b, schema, id, 1_000_000_000L * id, syms);
        return b;
    }
}
