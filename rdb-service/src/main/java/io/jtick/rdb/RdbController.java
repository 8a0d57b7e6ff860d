package io.jtick.rdb;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.QueryArgs;
import io.jtick.core.hdb.HdbWriteDown;
import io.jtick.core.hdb.PartitionWriter;
import io.jtick.core.rdb.ColumnarTable;
import io.jtick.core.rdb.QueryRequest;
import io.jtick.core.rdb.QueryResult;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.ColumnDef;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Query REST over today's data: {@code POST /api/query}, {@code GET /api/tables}, {@code GET /api/status}
 * (subscription, counters, end of day and write-down). Bad input answers 400 with a message (see {@link ApiErrors}).
 */
@RestController
@RequestMapping("/api")
class RdbController {
    /** Rows returned when a query gives no limit. */
    static final int DEFAULT_LIMIT = 1000;

    private final RealtimeDatabase rdb;
    private final ObjectProvider<RdbLifecycle> subscription;
    private final ObjectProvider<HdbWriteDown> writeDown;

    RdbController(final RealtimeDatabase rdb, final ObjectProvider<RdbLifecycle> subscription,
                  final ObjectProvider<HdbWriteDown> writeDown) {
        this.rdb = rdb;
        this.subscription = subscription;
        this.writeDown = writeDown;
    }

    /**
     * A query body. {@code from}/{@code to} are epoch nanoseconds (a JSON number or a string of
     * digits) or an ISO-8601 instant ({@code "2026-11-21T09:30:00Z"}), both inclusive; {@code syms}
     * and {@code columns} empty or absent mean all; {@code limit} defaults to {@value #DEFAULT_LIMIT}.
     */
    record QueryBody(@NotBlank String table, List<String> syms, Object from, Object to, List<String> columns, Integer limit) {
    }

    /** Result rows; timestamps are ISO-8601 strings with nanoseconds (see {@link QueryResult}). */
    @PostMapping("/query")
    QueryResult query(@Valid @RequestBody final QueryBody body) {
        final int limit = body.limit() == null ? DEFAULT_LIMIT : body.limit();
        return rdb.query(new QueryRequest(body.table(), body.syms(), QueryArgs.nanos("from", body.from()), QueryArgs.nanos("to", body.to()),
            body.columns(), limit));
    }

    record ColumnView(String name, String type) {
    }

    record TableView(String name, List<ColumnView> columns, long rows) {
    }

    @GetMapping("/tables")
    List<TableView> tables() {
        final List<TableView> out = new ArrayList<>();
        for (final ColumnarTable t : rdb.tables()) {
            final List<ColumnView> cols = new ArrayList<>();
            for (final ColumnDef c : t.schema().columns()) {
                cols.add(new ColumnView(c.name(), c.type().typeName()));
            }
            out.add(new TableView(t.schema().name(), cols, t.rowCount()));
        }
        return out;
    }

    /**
     * The end-of-day write-down: whether it is on and the last partition it wrote and announced
     * (null until one); a failed one shows in {@code lastEodError}.
     */
    record WriteDownView(boolean enabled, WrittenView lastWrite, String lastError) {
    }

    /** One partition written: date, directory, rows, raw and stored bytes, write time. */
    record WrittenView(LocalDate date, String directory, long rows, long rawBytes, long storedBytes, long millis,
                       List<PartitionWriter.TableWritten> tables) {
        static WrittenView of(final PartitionWriter.Written w) {
            return w == null ? null : new WrittenView(w.date(), w.directory().toString(),
                w.tables().stream().mapToLong(PartitionWriter.TableWritten::rows).sum(), w.rawBytes(), w.storedBytes(),
                w.nanos() / 1_000_000, w.tables());
        }
    }

    record StatusView(boolean connected, boolean subscribed, boolean caughtUp, long lastSequence, Map<String, Long> tables,
                      long rows, long updates, long duplicates, long rejected, long endOfDays, long endOfDayFailures,
                      int lastEndOfDay, String lastEodError, String lastError, WriteDownView writeDown) {
    }

    @GetMapping("/status")
    StatusView status() {
        final RdbLifecycle sub = subscription.getIfAvailable();
        final HdbWriteDown w = writeDown.getIfAvailable();
        final RealtimeDatabase.Status s = rdb.status();
        return new StatusView(sub != null && sub.connected(), sub != null && sub.subscribed(), s.caughtUp(), s.lastSequence(),
            s.tableRows(), s.rows(), s.updates(), s.duplicates(), s.rejected(), s.endOfDays(), s.endOfDayFailures(),
            s.lastEndOfDay(), s.lastEodError(), s.lastError(), new WriteDownView(w != null, w == null ? null : WrittenView.of(w.last()),
                w == null ? null : w.lastError()));
    }
}
