package io.jtick.core.tp;

import io.jtick.core.kdb.KdbAccess;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The kdb+ port's metrics ({@code tick.tp.kdb.*} in docs/metrics.md); its errors are counted under
 * the tickerplant's own {@code tick.tp.errors} codes. Written by the tickerplant thread; read by any.
 */
final class KdbCounters {
    /** A kdb+ {@code .u.upd} converted into the native UPDATE frame. */
    final LatencyStats decode;
    /** One {@code (`upd;`t;table)} message written for kdb+ subscribers (once per update and distinct sym list). */
    final LatencyStats encode;
    /** A sync call, from its message read to its response written. */
    final LatencyStats call;

    private final AtomicLong[] logins;
    private final AtomicLong async;
    private final AtomicLong sync;
    private final AtomicLong rows;
    private final AtomicLong published;
    private final AtomicLong publishedBytes;
    private final AtomicLong open = new AtomicLong();

    KdbCounters(final TickMetrics metrics) {
        decode = metrics.latency("tick.tp.kdb.decode", "TP kdb+ port: one .u.upd converted into the native update frame");
        encode = metrics.latency("tick.tp.kdb.encode", "TP kdb+ port: one (`upd;`t;table) message written for subscribers");
        call = metrics.latency("tick.tp.kdb.call", "TP kdb+ port: one sync call, message read to response written");
        logins = new AtomicLong[KdbAccess.Verdict.values().length];
        for (final KdbAccess.Verdict v : KdbAccess.Verdict.values()) {
            logins[v.ordinal()] = metrics.counter("tick.tp.kdb.logins|result=" + v.tag());
        }
        async = metrics.counter("tick.tp.kdb.messages|kind=async");
        sync = metrics.counter("tick.tp.kdb.messages|kind=sync");
        rows = metrics.counter("tick.tp.kdb.rows");
        published = metrics.counter("tick.tp.kdb.published");
        publishedBytes = metrics.counter("tick.tp.kdb.published.bytes");
        metrics.gauge("tick.tp.kdb.connections", open::get);
    }

    void login(final KdbAccess.Verdict v) {
        logins[v.ordinal()].incrementAndGet();
    }

    void message(final boolean isSync) {
        (isSync ? sync : async).incrementAndGet();
    }

    void rows(final int n) {
        rows.addAndGet(n);
    }

    /** One message serialized for kdb+ subscribers. */
    void published(final int bytes, final long nanos) {
        published.incrementAndGet();
        publishedBytes.addAndGet(bytes);
        encode.record(nanos);
    }

    void connection(final boolean opened) {
        open.addAndGet(opened ? 1 : -1);
    }
}
