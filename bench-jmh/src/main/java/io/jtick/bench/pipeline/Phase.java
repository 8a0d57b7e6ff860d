package io.jtick.bench.pipeline;

/**
 * One kind of run: {@code rows} rows in updates of {@code r} rows, as fast as the system takes
 * them ({@code rate} 0, frames packed into writes of up to {@code batchBytes}) or one update every
 * 1/{@code rate} s; {@code warmupRows} go first the same way and are not counted.
 */
record Phase(String name, long rows, int r, int rate, long warmupRows, int batchBytes) {
    static final String THROUGHPUT = "throughput";
    static final String LATENCY = "latency";

    Phase {
        if (r < 1 || rows < r || rows % r != 0 || warmupRows < 0 || warmupRows % r != 0) {
            throw new IllegalArgumentException("need rows >= r >= 1, rows and warm-up rows multiples of r [phase=" + name
                + ", rows=" + rows + ", r=" + r + ", warmupRows=" + warmupRows + "]");
        }
        if (rate < 0 || batchBytes < 1024) {
            throw new IllegalArgumentException("need rate >= 0 and batch bytes >= 1024 [phase=" + name + ", rate=" + rate
                + ", batchBytes=" + batchBytes + "]");
        }
    }

    boolean paced() {
        return rate > 0;
    }

    /** Warm-up and counted rows. */
    long totalRows() {
        return warmupRows + rows;
    }

    /** A generous wait for {@code count} rows to arrive. */
    long timeoutMillis(final long count) {
        final long paced = rate > 0 ? count / r * 1000L / rate : 0;
        return 60_000 + paced + count / 100;
    }

    String describe() {
        return String.format(java.util.Locale.ROOT, "%s: %,d rows in updates of r=%d, %s, %,d warm-up rows", name, rows, r,
            rate == 0 ? "as fast as possible" : String.format(java.util.Locale.ROOT, "%,d updates/s", rate), warmupRows);
    }
}
