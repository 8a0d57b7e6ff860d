package io.jtick.bench.query;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.stream.Stream;

/**
 * {@code duckdb-parquet}: DuckDB (in memory, its default threads) reading with {@code read_parquet}
 * the very files jtick's {@code parquet/zstd} tier wrote, the peer of {@code jtick-hdb-parquet}: the
 * data goes through a jtick HDB moved to that tier by the tiering job, and views name the tables'
 * files. {@code time} is the file's {@code TIMESTAMP(NANOS, UTC)} as a UTC timestamp, so the
 * questions are {@link DuckDbSystem}'s SQL unchanged.
 */
final class DuckDbParquet {
    private DuckDbParquet() {
    }

    static QuerySystem open(final TickData d) throws Exception {
        final JtickQuerySystem tier = new JtickQuerySystem(d, JtickQuerySystem.Layout.HDB_PARQUET);
        Connection conn = null;
        try {
            conn = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement s = conn.createStatement()) {
                s.execute("SET TimeZone = 'UTC'");
                for (final String table : new String[] {"trade", "quote"}) {
                    final String file = find(tier.root(), table + ".parquet").toString().replace("'", "''");
                    view(s, table, file);
                }
            }
            return new DuckDbSystem("duckdb-parquet", conn, d, tier);
        } catch (final Exception e) {
            if (conn != null) {
                conn.close();
            }
            tier.close();
            throw e;
        }
    }

    /**
     * The view of one table's file with {@code time} as microseconds (truncated, as {@link DuckDbSystem}
     * loads them): the first conversion this DuckDB version has for a {@code TIMESTAMP(NANOS, UTC)}.
     */
    private static void view(final Statement s, final String table, final String file) throws java.sql.SQLException {
        java.sql.SQLException last = null;
        for (final String time : new String[] {"make_timestamp(epoch_ns(time) // 1000)", "make_timestamp(epoch_us(time))",
            "time::TIMESTAMPTZ::TIMESTAMP"}) {
            try {
                s.execute("CREATE OR REPLACE VIEW " + table + " AS SELECT * REPLACE (" + time + " AS time) FROM read_parquet('"
                    + file + "')");
                s.executeQuery("SELECT epoch_us(time) FROM " + table + " LIMIT 1").close();
                return;
            } catch (final java.sql.SQLException e) {
                last = e;
            }
        }
        throw last;
    }

    private static Path find(final Path root, final String name) throws java.io.IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.getFileName().toString().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("the parquet tier wrote no " + name + " under " + root));
        }
    }
}
