package io.jtick.boot;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.PartitionUnavailableException;
import io.jtick.core.query.result.CsvResultWriter;
import io.jtick.core.query.result.EncodingWriter;
import io.jtick.core.query.result.JsonResultWriter;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.table.QuerySource;
import io.jtick.core.time.NanoClock;
import io.jtick.sql.SqlException;
import io.jtick.sql.SqlParams;
import io.jtick.sql.SqlRunner;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * {@code POST /api/query} for any service: runs a query document on the core engine and streams
 * the rows straight into the response as JSON, or CSV when the client accepts {@code text/csv}
 * (column types then go in {@code X-Jtick-Types}). Errors before the first byte is sent answer
 * 400 (bad query) or 413 (over a limit) with {@code {"error": ..., "status": ...}}; a result that
 * passes the byte limit mid-stream is ended with the error in the document instead. An HDB block
 * that fails its checks answers 500 with {@code file} and {@code block} (never returned as data).
 */
public final class QueryEndpoint {
    /** Response header with the result columns' types, comma separated. */
    public static final String TYPES_HEADER = "X-Jtick-Types";
    private static final Logger LOG = LoggerFactory.getLogger(QueryEndpoint.class);

    private final QueryEngine engine;
    private final SqlRunner sql;
    /** One encode buffer per servlet thread: an answer allocates no 64 KiB buffer of its own. */
    private final ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[EncodingWriter.DEFAULT_BUFFER]);

    public QueryEndpoint(final QueryEngine engine) {
        this.engine = engine;
        this.sql = new SqlRunner(engine, NanoClock.SYSTEM);
    }

    public QueryEngine engine() {
        return engine;
    }

    /**
     * @param body     the query document
     * @param accept   the request's Accept header (null: JSON)
     * @param headers  extra response headers (e.g. the RDB's trading day)
     */
    public void handle(final String body, final String accept, final QuerySource source, final Map<String, String> headers,
                       final HttpServletResponse response) throws IOException {
        final EncodingWriter[] writer = new EncodingWriter[1];
        try {
            engine.run(body, source, q -> writer[0] = open(accept, q.typesHeader(), headers, response));
        } catch (final QueryException e) {
            fail(response, writer[0], e.reason().httpStatus(), e.getMessage());
        } catch (final PartitionUnavailableException e) {
            unavailable(response, writer[0], e, "");
        } catch (final UncheckedIOException e) {
            if (e.getCause() instanceof CorruptPartitionException c) {
                // a block failing its checks is never returned as data: 500 naming the file and block
                fail(response, writer[0], 500, c.getMessage(), ",\"file\":" + quote(new StringBuilder(), String.valueOf(c.file()))
                    + ",\"block\":" + c.block());
            } else {
                LOG.debug("query client went away: {}", e.getMessage());
            }
        } catch (final RuntimeException e) {
            LOG.error("query failed [query={}]", body, e);
            fail(response, writer[0], 500, "query failed: " + e, "");
        }
    }

    /**
     * {@code POST /api/sql}: a SELECT ({@code docs/query.md} "SQL") compiled to a query document and
     * answered exactly as {@link #handle} answers that document; a refusal answers 400 (413 over a
     * limit, 503 when a source is gone) with the PostgreSQL SQLSTATE in {@code sqlstate}.
     */
    public void handleSql(final String sql, final String accept, final QuerySource source, final Map<String, String> headers,
                          final HttpServletResponse response) throws IOException {
        final EncodingWriter[] writer = new EncodingWriter[1];
        try {
            final SqlRunner.Prepared p = sql().prepare(sql, source, SqlParams.NONE);
            writer[0] = open(accept, SqlRunner.typesHeader(p), headers, response);
            sql().execute(p, source, writer[0]);
        } catch (final SqlException e) {
            fail(response, writer[0], e.httpStatus(), e.getMessage(), ",\"sqlstate\":\"" + e.sqlState() + "\"");
        } catch (final PartitionUnavailableException e) {
            unavailable(response, writer[0], e, ",\"sqlstate\":\"58030\"");
        } catch (final UncheckedIOException e) {
            if (e.getCause() instanceof CorruptPartitionException c) {
                fail(response, writer[0], 500, c.getMessage(), ",\"file\":" + quote(new StringBuilder(), String.valueOf(c.file()))
                    + ",\"block\":" + c.block());
            } else {
                LOG.debug("query client went away: {}", e.getMessage());
            }
        } catch (final RuntimeException e) {
            LOG.error("query failed [sql={}]", sql, e);
            fail(response, writer[0], 500, "query failed: " + e, ",\"sqlstate\":\"XX000\"");
        }
    }

    /**
     * A partition whose store (the cold tier's bucket) failed a read: 503 naming the partition, the
     * store and the reason, never a partial answer (an answer already streaming is aborted).
     */
    private static void unavailable(final HttpServletResponse response, final EncodingWriter writer, final PartitionUnavailableException e,
                                    final String extra) throws IOException {
        LOG.warn("query failed: {}", e.getMessage());
        fail(response, writer, 503, e.getMessage(), ",\"date\":\"" + e.date() + "\",\"table\":" + quote(new StringBuilder(), e.table())
            + ",\"store\":" + quote(new StringBuilder(), e.store()) + ",\"reason\":\"" + e.reason() + "\"" + extra);
    }

    /** The SQL front end over this endpoint's engine. */
    public SqlRunner sql() {
        return sql;
    }

    /** Status, headers and the JSON or CSV writer of an answer whose columns are known. */
    private EncodingWriter open(final String accept, final String types, final Map<String, String> headers,
                                final HttpServletResponse response) {
        final boolean csv = accept != null && accept.contains("text/csv");
        response.setStatus(200);
        // as large as the writer's buffer: an answer that fits goes out in one write, with a Content-Length
        response.setBufferSize(EncodingWriter.DEFAULT_BUFFER);
        response.setContentType(csv ? "text/csv;charset=UTF-8" : "application/json");
        response.setHeader(TYPES_HEADER, types);
        headers.forEach(response::setHeader);
        final OutputStream out;
        try {
            out = response.getOutputStream();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        final long maxBytes = engine.limits().maxBytes();
        final byte[] buffer = buffers.get();
        return csv ? new CsvResultWriter(out, maxBytes, buffer) : new JsonResultWriter(out, maxBytes, buffer);
    }

    private static void fail(final HttpServletResponse response, final EncodingWriter writer, final int status, final String message)
        throws IOException {
        fail(response, writer, status, message, "");
    }

    /** @param extra more JSON fields for the error document, each starting with a comma */
    private static void fail(final HttpServletResponse response, final EncodingWriter writer, final int status, final String message,
                             final String extra) throws IOException {
        if (!response.isCommitted() && (writer == null || !writer.committed())) {
            response.reset();
            response.setStatus(status);
            response.setContentType("application/json");
            final StringBuilder sb = new StringBuilder("{\"error\":");
            quote(sb, message);
            sb.append(",\"status\":").append(status).append(extra).append('}');
            response.getOutputStream().write(sb.toString().getBytes(StandardCharsets.UTF_8));
            return;
        }
        try {
            writer.abort(message);
        } catch (final UncheckedIOException e) {
            LOG.debug("query client went away: {}", e.getMessage());
        }
    }

    private static StringBuilder quote(final StringBuilder sb, final String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
        return sb;
    }
}
