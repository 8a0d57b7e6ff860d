package io.jtick.hdb;

import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.lab.compression.TableLoader;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Partitions written with the real writer from synthetic days, the rows a query must return, and an HTTP helper. */
final class HdbTestData {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HdbTestData() {
    }

    /** Writes a synthetic day of {@code table} as partition {@code date} and returns the in-memory source. */
    static TableSegment writeDay(final Path root, final LocalDate date, final String table, final int rows, final int syms,
                                  final long seed, final EncodingPolicy policy) throws IOException {
        final TableSegment source = TableLoader.syntheticDay(table, date, rows, syms, seed, new SymbolCatalog())
            .segment((int) date.toEpochDay());
        new PartitionWriter(root, policy).write(date, List.of(source));
        return source;
    }

    /**
     * The rows an HDB query must return from one partition written from {@code source}: sym in
     * {@code syms} (null: all), time in [from, to], in partition order (sym name, time, arrival),
     * with the virtual {@code date} column.
     */
    static List<List<Object>> expected(final LocalDate date, final TableSegment source, final List<String> syms, final long from,
                                       final long to, final List<String> columns) {
        final TableSchema schema = source.schema();
        final List<Integer> rows = new ArrayList<>();
        for (int r = 0; r < source.rowCount(); r++) {
            final long t = Cells.time(source, r);
            if ((syms == null || syms.contains(Cells.sym(source, r))) && t >= from && t <= to) {
                rows.add(r);
            }
        }
        rows.sort(Comparator.comparing((Integer r) -> Cells.sym(source, r)).thenComparingLong(r -> Cells.time(source, r)));
        final List<List<Object>> out = new ArrayList<>();
        for (final int r : rows) {
            final List<Object> row = new ArrayList<>();
            for (final String c : columns) {
                row.add("date".equals(c) ? date.toString() : Cells.cell(source, schema.indexOf(c), r));
            }
            out.add(row);
        }
        return out;
    }

    static HttpResponse<String> call(final int port, final String method, final String path, final String body,
                                     final Map<String, String> headers) throws IOException, InterruptedException {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60));
        headers.forEach(b::header);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
