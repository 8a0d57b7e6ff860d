package io.jtick.core.gateway;

import io.jtick.core.query.model.Json;
import io.jtick.core.query.model.Literals;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.CsvResultWriter;
import io.jtick.core.query.result.JsonResultWriter;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.query.result.TimeFormat;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import io.jtick.core.tls.LazyHttpClient;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The RDB as a {@link QuerySource} over REST, for a {@link Gateway} in another process: for each
 * table a query reads, it asks the RDB's {@code POST /api/query} for the columns and conditions
 * of the {@link ScanHint} as CSV (rows streamed, types in {@code X-Jtick-Types}, the trading day
 * in {@code X-Jtick-Day}) and keeps them as one in-memory segment of that day. Aggregates then run
 * in the gateway over exact rows, so every one (median too) is exact; the price is moving today's
 * matching rows, bounded by the RDB's {@code tick.query.max-rows}.
 */
public final class RemoteRdbSource implements QuerySource {
    private final URI base;
    private final LazyHttpClient http;
    private final Duration timeout;
    private final String authorization;

    /** @param baseUrl the RDB's base URL, like {@code http://127.0.0.1:8011} */
    public RemoteRdbSource(final String baseUrl, final Duration timeout) {
        this(baseUrl, timeout, null);
    }

    /**
     * @param baseUrl the RDB's base URL, like {@code http://127.0.0.1:8011}
     * @param token   the API token sent with each request ({@code Authorization: Bearer}), for an RDB that protects reads; null = none
     */
    public RemoteRdbSource(final String baseUrl, final Duration timeout, final String token) {
        this(baseUrl, timeout, token, null);
    }

    /** @param tls the TLS context of an {@code https://} RDB (its CA trusted, this service's certificate), or null for the JDK's */
    public RemoteRdbSource(final String baseUrl, final Duration timeout, final String token, final javax.net.ssl.SSLContext tls) {
        this.base = URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
        this.timeout = timeout;
        this.authorization = token == null || token.isBlank() ? null : "Bearer " + token.trim();
        this.http = new LazyHttpClient(timeout, HttpClient.Version.HTTP_1_1, tls);
    }

    private HttpRequest.Builder request(final String path) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout);
        return authorization == null ? b : b.header("Authorization", authorization);
    }

    /** The schema from the RDB's {@code GET /api/tables}; null when the RDB has no such table. */
    @Override
    public TableSchema schema(final String table) {
        final HttpResponse<String> r = send(request("api/tables").GET().build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw unavailable("GET /api/tables answered " + r.statusCode());
        }
        final Object doc = Json.parse(r.body());
        if (!(doc instanceof List<?> tables)) {
            throw unavailable("GET /api/tables did not answer a list");
        }
        for (final Object t : tables) {
            if (t instanceof Map<?, ?> m && table.equals(m.get("name")) && m.get("columns") instanceof List<?> cols) {
                final List<ColumnDef> defs = new ArrayList<>();
                for (final Object c : cols) {
                    final Map<?, ?> cm = (Map<?, ?>) c;
                    defs.add(new ColumnDef((String) cm.get("name"), ColumnType.parse((String) cm.get("type"))));
                }
                return new TableSchema(table, defs);
            }
        }
        return null;
    }

    @Override
    public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
        final Map<String, Object> q = new LinkedHashMap<>();
        q.put("table", table);
        final Map<String, Object> dates = new LinkedHashMap<>();
        if (fromDay != ALL_DAYS_FROM) {
            dates.put("from", LocalDate.ofEpochDay(fromDay).toString());
        }
        if (toDay != ALL_DAYS_TO) {
            dates.put("to", LocalDate.ofEpochDay(toDay).toString());
        }
        if (!dates.isEmpty()) {
            q.put("dates", dates);
        }
        if (hint.where() != null) {
            q.put("where", hint.where());
        }
        q.put("select", hint.columns());
        final HttpRequest req = request("api/query").header("Content-Type", "application/json").header("Accept", "text/csv")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(q))).build();
        final HttpResponse<InputStream> r = send(req, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = new BufferedInputStream(r.body(), 1 << 16)) {
            if (r.statusCode() != 200) {
                throw refused(r.statusCode(), new String(body.readAllBytes(), StandardCharsets.UTF_8));
            }
            final String day = day(r);
            final String types = r.headers().firstValue("X-Jtick-Types")
                .orElseThrow(() -> unavailable("the RDB's answer has no X-Jtick-Types header"));
            final int epochDay = (int) LocalDate.parse(day).toEpochDay();
            if (epochDay < fromDay || epochDay > toDay) {
                return List.of();
            }
            return List.of(read(table, hint.columns(), types.split(","), epochDay, body));
        } catch (final IOException e) {
            throw unavailable("reading the RDB's rows failed: " + e);
        }
    }

    /** The RDB's partial result of a split gateway query: its trading day and the rows (null when the day is outside the query's). */
    record Part(int epochDay, ResultTable rows, long rowsScanned) {
    }

    /**
     * Runs a query document on the RDB (JSON) and keeps the answer in memory; {@code rows} is null
     * when the RDB's day is outside {@code [fromDay, toDay]}.
     */
    Part query(final String document, final int fromDay, final int toDay) {
        final HttpRequest req = request("api/query").header("Content-Type", "application/json").header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(document)).build();
        final HttpResponse<String> r = send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw refused(r.statusCode(), r.body());
        }
        final int epochDay = (int) LocalDate.parse(day(r)).toEpochDay();
        if (epochDay < fromDay || epochDay > toDay) {
            return new Part(epochDay, null, 0);
        }
        final Object doc = Json.parse(r.body());
        if (!(doc instanceof Map<?, ?> m) || !(m.get("columns") instanceof List<?> cols) || !(m.get("types") instanceof List<?> types)
            || !(m.get("rows") instanceof List<?> rows)) {
            throw unavailable("the RDB's answer is not a query result");
        }
        if (m.get("error") instanceof String e) {
            throw new QueryException(QueryException.Reason.TOO_LARGE, "rdb: " + e);
        }
        final List<String> names = new ArrayList<>();
        final List<ValueType> valueTypes = new ArrayList<>();
        for (int c = 0; c < cols.size(); c++) {
            names.add((String) cols.get(c));
            valueTypes.add(ValueType.parse((String) types.get(c)));
        }
        final ResultTable out = new ResultTable();
        out.begin(names, valueTypes);
        for (final Object row : rows) {
            final List<?> cells = (List<?>) row;
            for (int c = 0; c < names.size(); c++) {
                cell(out, valueTypes.get(c), cells.get(c), names.get(c));
            }
            out.endRow();
        }
        final long scanned = m.get("rowsScanned") instanceof Long l ? l : 0;
        return new Part(epochDay, out, scanned);
    }

    /** One JSON cell (as {@link JsonResultWriter} writes it) into a result table. */
    private static void cell(final ResultTable out, final ValueType type, final Object v, final String column) {
        if (v == null || v == Json.NULL) {
            out.nullValue();
            return;
        }
        switch (type) {
            case SYMBOL -> out.symbol((String) v);
            case FLOAT64, FLOAT32 -> out.value(((Number) v).doubleValue());
            case TIMESTAMP -> out.value(timestamp((String) v, column));
            case DATE -> out.value(LocalDate.parse((String) v).toEpochDay());
            case CHAR -> out.value(((String) v).isEmpty() ? ' ' : (long) ((String) v).charAt(0));
            case BOOL -> out.value(Boolean.TRUE.equals(v) ? 1L : 0L);
            default -> out.value(((Number) v).longValue());
        }
    }

    /** A timestamp as the result writers write it (ISO-8601), or any form a query accepts. */
    private static long timestamp(final String v, final String column) {
        final long t = TimeFormat.parseIso(v);
        return t != Long.MIN_VALUE ? t : Literals.time(v, column).nanos();
    }

    private static String day(final HttpResponse<?> r) {
        return r.headers().firstValue("X-Jtick-Day").orElseThrow(() -> unavailable("the RDB's answer has no X-Jtick-Day header"));
    }

    /** The RDB's error answer as the gateway's: its 400 and 413 pass through, anything else is 503. */
    private static QueryException refused(final int status, final String text) {
        final Object err = text.startsWith("{") ? Json.parse(text) : null;
        final String msg = err instanceof Map<?, ?> m && m.get("error") instanceof String s ? s : text;
        final QueryException.Reason reason = status == 413 ? QueryException.Reason.TOO_LARGE
            : status == 400 ? QueryException.Reason.BAD_QUERY : QueryException.Reason.UNAVAILABLE;
        return new QueryException(reason, "rdb: " + msg + " [status=" + status + "]");
    }

    private <T> HttpResponse<T> send(final HttpRequest req, final HttpResponse.BodyHandler<T> handler) {
        try {
            return http.get().send(req, handler);
        } catch (final IOException e) {
            throw unavailable("RDB unreachable [url=" + req.uri() + ", error=" + e + "]");
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("interrupted waiting for the RDB [url=" + req.uri() + "]");
        }
    }

    private static QueryException unavailable(final String message) {
        return new QueryException(QueryException.Reason.UNAVAILABLE, message);
    }

    /** Parses the RDB's CSV (header line, then rows as {@link CsvResultWriter} writes them) into a segment. */
    private static MemorySegment read(final String table, final List<String> columns, final String[] typeNames, final int epochDay,
                              final InputStream in) throws IOException {
        if (typeNames.length != columns.size()) {
            throw unavailable("the RDB answered " + typeNames.length + " columns, expected " + columns.size());
        }
        final List<ColumnDef> defs = new ArrayList<>();
        for (int c = 0; c < typeNames.length; c++) {
            defs.add(new ColumnDef(columns.get(c), ColumnType.parse(typeNames[c])));
        }
        final TableSchema schema = new TableSchema(table, defs);
        final MemorySegment.Builder b = MemorySegment.builder(schema, epochDay);
        final CsvFields f = new CsvFields(in);
        if (!f.nextLine()) {
            throw unavailable("the RDB's answer has no header line");
        }
        while (f.nextLine()) {
            for (int c = 0; c < defs.size(); c++) {
                final String v = f.field(c);
                switch (defs.get(c).type()) {
                    case TIMESTAMP:
                        b.value(timestamp(v, columns.get(c)));
                        break;
                    case SYMBOL:
                        b.symbol(v);
                        break;
                    case FLOAT64:
                    case FLOAT32:
                        b.value(v.isEmpty() ? Double.NaN : Double.parseDouble(v));
                        break;
                    case BOOL:
                        b.value("true".equals(v) ? 1L : 0L);
                        break;
                    case CHAR:
                        b.value(v.isEmpty() ? ' ' : (long) v.charAt(0));
                        break;
                    default:
                        b.value(Long.parseLong(v));
                        break;
                }
            }
            b.endRow();
        }
        return b.build();
    }

    /** Splits RFC 4180 lines (quoted fields with doubled quotes) from a stream. */
    private static final class CsvFields {
        private final InputStream in;
        private final List<String> fields = new ArrayList<>();
        private final StringBuilder sb = new StringBuilder();

        CsvFields(final InputStream in) {
            this.in = in;
        }

        String field(final int i) {
            if (i >= fields.size()) {
                throw unavailable("short CSV line from the RDB [fields=" + fields.size() + "]");
            }
            return fields.get(i);
        }

        boolean nextLine() throws IOException {
            fields.clear();
            sb.setLength(0);
            int c = in.read();
            if (c < 0) {
                return false;
            }
            boolean quoted = false;
            while (true) {
                if (c < 0) {
                    fields.add(sb.toString());
                    return true;
                }
                if (quoted) {
                    if (c == '"') {
                        final int n = in.read();
                        if (n == '"') {
                            sb.append('"');
                        } else {
                            quoted = false;
                            c = n;
                            continue;
                        }
                    } else {
                        sb.append((char) c);
                    }
                } else if (c == '"') {
                    quoted = true;
                } else if (c == ',') {
                    fields.add(sb.toString());
                    sb.setLength(0);
                } else if (c == '\n') {
                    fields.add(sb.toString());
                    return true;
                } else if (c != '\r') {
                    sb.append((char) c);
                }
                c = in.read();
            }
        }
    }
}
