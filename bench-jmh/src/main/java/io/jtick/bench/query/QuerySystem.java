package io.jtick.bench.query;

/** A system the benchmark asks questions of, with the data loaded. */
public interface QuerySystem extends AutoCloseable {
    String name();

    /**
     * Runs a question and reads every value of every row the way a client of that system would;
     * returns a checksum of what it read (kept alive by JMH).
     */
    long run(BenchQuery q) throws Exception;

    /** Runs a question and returns its rows for comparison. */
    Answer answer(BenchQuery q) throws Exception;

    @Override
    void close() throws Exception;

    /** Loads a data set into a system by name: jtick, jtick-parted, jtick-hdb, jtick-hdb-lz4, jtick-hdb-parquet, duckdb,
     * duckdb-parquet or questdb. */
    static QuerySystem open(final String system, final TickData data) throws Exception {
        for (final JtickQuerySystem.Layout layout : JtickQuerySystem.Layout.values()) {
            if (layout.systemName.equals(system)) {
                return new JtickQuerySystem(data, layout);
            }
        }
        switch (system) {
            case "duckdb":
                return new DuckDbSystem(data);
            case "duckdb-parquet":
                return DuckDbParquet.open(data);
            case "questdb":
                return new QuestDbSystem(data);
            default:
                throw new IllegalArgumentException("unknown system [system=" + system
                    + "]: jtick, jtick-parted, jtick-hdb, jtick-hdb-lz4, jtick-hdb-parquet, duckdb, duckdb-parquet, questdb");
        }
    }
}
