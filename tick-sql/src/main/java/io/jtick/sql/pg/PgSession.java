package io.jtick.sql.pg;

import io.jtick.core.hdb.format.PartitionUnavailableException;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ResultTable;
import io.jtick.sql.SqlException;
import io.jtick.sql.SqlParams;
import io.jtick.sql.SqlPlan;
import io.jtick.sql.SqlRunner;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A ready connection's statements, on its worker: the simple query protocol (Query, one or more
 * statements) and the extended one (Parse, Bind, Describe, Execute, Sync, Flush, Close: named
 * statements and portals, portals read in parts), session statements (SET, SHOW, BEGIN...),
 * catalog statements ({@link PgCatalog}) and SELECTs through the SQL front end. Errors answer an
 * ErrorResponse with the SQLSTATE; in the extended protocol the messages up to Sync are skipped,
 * as PostgreSQL does. State: the output buffer, the named statements and portals, the settings.
 */
final class PgSession {
    /** The extended protocol's messages: after an error in one of them the rest up to Sync are skipped. */
    private static final String EXTENDED = "PBDEHC";
    private static final Pattern PARAM = Pattern.compile("\\$(\\d+)");
    private static final Pattern TRAILING_SEMICOLON = Pattern.compile(";\\s*$");
    /** A portal read in parts by at most this many rows runs on the I/O thread too ({@link SqlPlan#runsInline}). */
    static final int INLINE_ROWS = SqlPlan.INLINE_ROWS;

    private final PgConnection conn;
    private final PgServer server;
    private ByteBuf out;
    private boolean skipToSync;
    private final Map<String, Statement> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    private final Map<String, String> settings = new LinkedHashMap<>();

    /** A named statement: its text, declared parameter types, the parameters it uses, and its plan compiled at Parse. */
    private record Statement(String sql, int[] paramTypes, int parameters, Plan described) {
    }

    /** What a statement does. */
    private sealed interface Plan permits Empty, Session, Text, Select {
    }

    private record Empty() implements Plan {
    }

    private record Session(String tag) implements Plan {
    }

    private record Text(PgCatalog.Answer answer, String tag) implements Plan {
    }

    private record Select(SqlRunner.Prepared prepared) implements Plan {
    }

    private static final class Portal {
        final Plan plan;
        final boolean[] binary;
        ResultTable table;
        int next;

        Portal(final Plan plan, final boolean[] binary) {
            this.plan = plan;
            this.binary = binary;
        }
    }

    PgSession(final PgConnection conn) {
        this.conn = conn;
        this.server = conn.server;
        settings.put("application_name", conn.startupParams().getOrDefault("application_name", ""));
        settings.put("client_encoding", "UTF8");
        settings.put("datestyle", "ISO, MDY");
        settings.put("timezone", "UTC");
        settings.put("extra_float_digits", "3");
        settings.put("search_path", "public");
        settings.put("server_version", "14.0");
        settings.put("server_version_num", "140000");
        settings.put("standard_conforming_strings", "on");
        settings.put("transaction_isolation", "read committed");
        settings.put("integer_datetimes", "on");
        settings.put("max_identifier_length", "63");
    }

    private ByteBuf out() {
        if (out == null) {
            out = conn.ctx().alloc().buffer(PgRowSink.BATCH + 1024);
        }
        return out;
    }

    /** Sends what is buffered; on a worker, waits while the client reads slowly. */
    private void flush() {
        if (out != null && out.isReadable()) {
            final ByteBuf b = out;
            out = null;
            conn.ctx().channel().writeAndFlush(b, conn.ctx().channel().voidPromise());
        }
        conn.awaitWritable();
    }

    /**
     * True when the message may run on the I/O thread: every message but a simple Query and the
     * Execute of a statement whose answer is not bounded by {@link #INLINE_ROWS}. Reads the body
     * without consuming it.
     */
    boolean inline(final char type, final ByteBuf body) {
        if (type == 'Q') {
            return false;
        }
        if (type != 'E' || skipToSync) {
            return true;
        }
        final int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (end < 0 || body.writerIndex() - end < 5) {
            return true;
        }
        final Portal p = portals.get(body.toString(body.readerIndex(), end - body.readerIndex(), StandardCharsets.UTF_8));
        if (p == null || !(p.plan instanceof Select s)) {
            return true;
        }
        final int maxRows = body.getInt(end + 1);
        if (p.table != null) {
            return maxRows > 0 && maxRows <= INLINE_ROWS;
        }
        return s.prepared().plan().runsInline();
    }

    void handle(final char type, final ByteBuf body) {
        if (skipToSync && type != 'S' && type != 'X') {
            return;
        }
        try {
            switch (type) {
                case 'Q' -> simpleQuery(PgConnection.cstring(body));
                case 'P' -> parse(body);
                case 'B' -> bind(body);
                case 'D' -> describe(body);
                case 'E' -> execute(body);
                case 'S' -> {
                    skipToSync = false;
                    PgProxy.ready(out());
                    flush();
                }
                case 'H' -> flush();
                case 'C' -> {
                    final char what = (char) body.readByte();
                    final String name = PgConnection.cstring(body);
                    (what == 'S' ? statements : portals).remove(name);
                    PgProxy.simple(out(), '3');
                }
                case 'X' -> conn.ctx().close();
                default -> {
                    server.badMessages.incrementAndGet();
                    throw new SqlException(SqlException.PROTOCOL, "unknown or unsupported message type [type=" + PgDecoder.printable(type)
                        + "]");
                }
            }
        } catch (final SqlException e) {
            // an error in the extended protocol skips to its Sync; after a simple Query or an unknown message there is none
            fail(e.sqlState(), e.getMessage(), EXTENDED.indexOf(type) >= 0);
            if (type == 'Q') {
                PgProxy.ready(out());
                flush();
            }
        } catch (final PartitionUnavailableException e) {
            // the cold tier's store failed a read mid-statement: an error naming partition and store, never a partial answer
            fail(SqlException.IO_ERROR, e.getMessage(), EXTENDED.indexOf(type) >= 0);
            if (type == 'Q') {
                PgProxy.ready(out());
                flush();
            }
        } catch (final IndexOutOfBoundsException | IllegalArgumentException e) {
            server.badMessages.incrementAndGet();
            fail(SqlException.PROTOCOL, "malformed message [type=" + PgDecoder.printable(type) + "]: " + e.getMessage(), type != 'Q');
            if (type == 'Q') {
                PgProxy.ready(out());
                flush();
            }
        }
    }

    private void fail(final String state, final String message, final boolean extended) {
        server.errors.incrementAndGet();
        final ByteBuf b = out();
        PgProxy.error(b, state, message);
        if (extended) {
            skipToSync = true;
        }
        flush();
    }

    // ---- simple query ---------------------------------------------------------------------------

    private void simpleQuery(final String text) {
        final List<String> parts = split(text);
        if (parts.isEmpty()) {
            PgProxy.simple(out(), 'I');
        }
        for (final String sql : parts) {
            final Plan plan = plan(sql, SqlParams.NONE);
            if (plan instanceof Select || plan instanceof Text) {
                // the simple protocol describes rows only (no NoData)
                describe(plan, null);
            }
            run(plan, null, 0, null);
        }
        PgProxy.ready(out());
        flush();
    }

    /** The statements of a Query message, split at semicolons outside literals and comments. */
    static List<String> split(final String text) {
        final String masked = io.jtick.sql.SqlTexts.mask(text);
        final List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= masked.length(); i++) {
            if (i == masked.length() || masked.charAt(i) == ';') {
                final String s = text.substring(from, i).trim();
                if (!s.isEmpty()) {
                    out.add(s);
                }
                from = i + 1;
            }
        }
        return out;
    }

    // ---- extended query -------------------------------------------------------------------------

    private void parse(final ByteBuf b) {
        final String name = PgConnection.cstring(b);
        final String sql = PgConnection.cstring(b);
        final int n = b.readUnsignedShort();
        final int[] types = new int[n];
        for (int i = 0; i < n; i++) {
            types[i] = b.readInt();
        }
        // errors of the statement itself (syntax, tables, columns) are reported here, as PostgreSQL does
        final Plan described = plan(sql, SqlParams.DESCRIBE);
        statements.put(name, new Statement(sql, types, parameterCount(sql), described));
        PgProxy.simple(out(), '1');
    }

    private void bind(final ByteBuf b) {
        final String portal = PgConnection.cstring(b);
        final Statement st = statement(PgConnection.cstring(b));
        final int nf = b.readUnsignedShort();
        final short[] formats = new short[nf];
        for (int i = 0; i < nf; i++) {
            formats[i] = b.readShort();
        }
        final int np = b.readUnsignedShort();
        final List<Object> values = new ArrayList<>(np);
        for (int i = 0; i < np; i++) {
            final int len = b.readInt();
            if (len < 0) {
                values.add(null);
                continue;
            }
            final ByteBuf v = b.readSlice(len);
            final boolean binary = nf == 1 ? formats[0] == 1 : nf > i && formats[i] == 1;
            final int oid = i < st.paramTypes().length ? st.paramTypes()[i] : 0;
            values.add(binary ? binaryParam(v, oid, i + 1) : v.toString(StandardCharsets.UTF_8));
        }
        final int nr = b.readUnsignedShort();
        final short[] results = new short[nr];
        for (int i = 0; i < nr; i++) {
            results[i] = b.readShort();
        }
        // a statement without parameters runs its Parse-time plan again (compiled once, as a server-side prepared statement should be)
        final Plan plan = st.described() instanceof Select s && s.prepared().reusable(st.parameters()) ? new Select(s.prepared().again())
            : plan(st.sql(), SqlParams.of(values));
        final int columns = plan instanceof Select s ? s.prepared().names().size()
            : plan instanceof Text t ? t.answer().names().size() : 0;
        final boolean[] binary = new boolean[columns];
        for (int i = 0; i < columns; i++) {
            binary[i] = nr == 1 ? results[0] == 1 : nr > i && results[i] == 1;
        }
        portals.put(portal, new Portal(plan, binary));
        PgProxy.simple(out(), '2');
    }

    private static Object binaryParam(final ByteBuf v, final int oid, final int index) {
        return switch (oid) {
            case PgTypes.INT8 -> v.readLong();
            case PgTypes.INT4 -> (long) v.readInt();
            case PgTypes.INT2 -> (long) v.readShort();
            case PgTypes.FLOAT8 -> v.readDouble();
            case PgTypes.FLOAT4 -> (double) v.readFloat();
            case PgTypes.BOOL -> v.readByte() != 0;
            case PgTypes.TIMESTAMP, PgTypes.TIMESTAMPTZ -> Math.multiplyExact(v.readLong() + PgTypes.PG_EPOCH_MICROS, 1000L);
            case PgTypes.DATE -> java.time.LocalDate.ofEpochDay(v.readInt() + PgTypes.PG_EPOCH_DAY).toString();
            case PgTypes.TEXT, PgTypes.VARCHAR, PgTypes.BPCHAR, 0 -> v.toString(StandardCharsets.UTF_8);
            default -> throw new SqlException(SqlException.NOT_SUPPORTED, "binary parameter of type oid " + oid + " [parameter=$"
                + index + "]: send it as text");
        };
    }

    private void describe(final ByteBuf b) {
        final char what = (char) b.readByte();
        final String name = PgConnection.cstring(b);
        if (what == 'S') {
            final Statement st = statement(name);
            final int n = Math.max(st.paramTypes().length, st.parameters());
            final int[] oids = new int[n];
            for (int i = 0; i < n; i++) {
                oids[i] = i < st.paramTypes().length && st.paramTypes()[i] != 0 ? st.paramTypes()[i] : PgTypes.TEXT;
            }
            PgProxy.parameterDescription(out(), oids);
            describe(st.described(), null);
        } else {
            final Portal p = portal(name);
            describe(p.plan, p.binary);
        }
    }

    private void execute(final ByteBuf b) {
        final Portal p = portal(PgConnection.cstring(b));
        final int maxRows = b.readInt();
        run(p.plan, p.binary, maxRows, p);
    }

    private Statement statement(final String name) {
        final Statement st = statements.get(name);
        if (st == null) {
            throw new SqlException("26000", "prepared statement \"" + name + "\" does not exist");
        }
        return st;
    }

    private Portal portal(final String name) {
        final Portal p = portals.get(name);
        if (p == null) {
            throw new SqlException("34000", "portal \"" + name + "\" does not exist");
        }
        return p;
    }

    static int parameterCount(final String sql) {
        final Matcher m = PARAM.matcher(io.jtick.sql.SqlTexts.mask(sql));
        int max = 0;
        while (m.find()) {
            max = Math.max(max, Integer.parseInt(m.group(1)));
        }
        return max;
    }

    // ---- plans ----------------------------------------------------------------------------------

    private Plan plan(final String sql0, final SqlParams params) {
        final String sql = TRAILING_SEMICOLON.matcher(sql0.trim()).replaceFirst("");
        if (sql.isEmpty()) {
            return new Empty();
        }
        int w = 0;
        while (w < sql.length() && !Character.isWhitespace(sql.charAt(w))) {
            w++;
        }
        final String first = sql.substring(0, w).toLowerCase(Locale.ROOT);
        switch (first) {
            case "set":
                set(sql);
                return new Session("SET");
            case "reset":
                return new Session("RESET");
            case "begin":
            case "start":
                return new Session("BEGIN");
            case "commit":
            case "end":
                return new Session("COMMIT");
            case "rollback":
            case "abort":
                return new Session("ROLLBACK");
            case "discard":
                return new Session("DISCARD ALL");
            case "deallocate":
                return new Session("DEALLOCATE");
            case "show":
                final String name = sql.substring(4).trim().toLowerCase(Locale.ROOT).replace("\"", "");
                final String value = settings.get(name.replace(" ", ""));
                if (value == null && !name.equals("all")) {
                    throw new SqlException("42704", "unrecognized configuration parameter \"" + name + "\"");
                }
                final List<List<String>> rows = new ArrayList<>();
                if (name.equals("all")) {
                    settings.forEach((k, v) -> rows.add(List.of(k, v, "")));
                    return new Text(new PgCatalog.Answer(List.of("name", "setting", "description"), rows), "SHOW");
                }
                rows.add(List.of(value));
                return new Text(new PgCatalog.Answer(List.of(name), rows), "SHOW");
            default:
                break;
        }
        if (PgCatalog.handles(sql)) {
            return new Text(server.catalog.answer(params.describing() ? sql : inline(sql, params)), null);
        }
        return new Select(server.runner.prepare(sql, server.source, params));
    }

    /** A catalog statement's parameters written in as literals (the catalog reads names and patterns from the text). */
    private static String inline(final String sql, final SqlParams params) {
        final Matcher m = PARAM.matcher(io.jtick.sql.SqlTexts.mask(sql));
        final StringBuilder sb = new StringBuilder();
        int at = 0;
        while (m.find()) {
            final Object v = params.value(Integer.parseInt(m.group(1)));
            sb.append(sql, at, m.start()).append(v == null ? "NULL" : "'" + String.valueOf(v).replace("'", "''") + "'");
            at = m.end();
        }
        return sb.append(sql.substring(at)).toString();
    }

    private void set(final String sql) {
        final Matcher m = Pattern.compile("(?is)set\\s+(?:session\\s+|local\\s+)?([a-z_.]+)\\s*(?:=|to)\\s*(.*)").matcher(sql);
        if (m.matches()) {
            String v = m.group(2).trim();
            if (v.startsWith("'") && v.endsWith("'") && v.length() >= 2) {
                v = v.substring(1, v.length() - 1);
            }
            settings.put(m.group(1).toLowerCase(Locale.ROOT), v);
        }
    }

    /** RowDescription, or NoData for a statement without rows. */
    private void describe(final Plan plan, final boolean[] binary) {
        if (plan instanceof Select s) {
            PgProxy.rowDescription(out(), s.prepared().names(), s.prepared().types(), binary);
        } else if (plan instanceof Text t) {
            PgProxy.textRowDescription(out(), t.answer().names(), null);
        } else {
            PgProxy.simple(out(), 'n');
        }
    }

    /** Runs a plan: its rows, then CommandComplete (or PortalSuspended when {@code maxRows} stopped it). */
    private void run(final Plan plan, final boolean[] binary, final int maxRows, final Portal portal) {
        // a cancel meant for an earlier statement does not stop this one; counted once it can be cancelled
        conn.takeCancelled();
        server.statements.incrementAndGet();
        if (plan instanceof Empty) {
            PgProxy.simple(out(), 'I');
        } else if (plan instanceof Session s) {
            PgProxy.commandComplete(out(), s.tag());
        } else if (plan instanceof Text t) {
            final List<List<String>> rows = t.answer().rows();
            final int from = portal == null ? 0 : portal.next;
            final int to = maxRows > 0 ? Math.min(rows.size(), from + maxRows) : rows.size();
            for (int i = from; i < to; i++) {
                PgProxy.textRow(out(), rows.get(i));
            }
            if (portal != null) {
                portal.next = to;
            }
            if (to < rows.size()) {
                PgProxy.simple(out(), 's');
            } else {
                PgProxy.commandComplete(out(), t.tag() != null ? t.tag() : "SELECT " + (to - from));
            }
        } else {
            select(((Select) plan).prepared(), binary, maxRows, portal);
        }
    }

    private void select(final SqlRunner.Prepared p, final boolean[] binary, final int maxRows, final Portal portal) {
        final PgRowSink sink = new PgRowSink(new PgRowSink.Batches() {
            @Override
            public ByteBuf buffer() {
                return out();
            }

            @Override
            public void flush() {
                PgSession.this.flush();
                if (conn.cancelled()) {
                    server.cancelled.incrementAndGet();
                    throw new SqlException(SqlException.CANCELLED, "canceling statement due to user request");
                }
            }
        }, binary);
        if (maxRows <= 0 && (portal == null || portal.table == null)) {
            server.runner.execute(p, server.source, sink);
            PgProxy.commandComplete(out(), "SELECT " + sink.rows());
            return;
        }
        // a portal read in parts: its answer kept (bounded by tick.query.max-rows), sent maxRows at a time
        if (portal.table == null) {
            portal.table = new ResultTable();
            server.runner.execute(p, server.source, portal.table);
        }
        final ResultTable t = portal.table;
        final int to = maxRows > 0 ? (int) Math.min(t.rowCount(), (long) portal.next + maxRows) : t.rowCount();
        sink.begin(p.names(), p.types());
        final List<ValueType> types = t.types();
        for (int r = portal.next; r < to; r++) {
            for (int c = 0; c < types.size(); c++) {
                if (t.isNull(r, c)) {
                    sink.nullValue();
                } else if (types.get(c) == ValueType.SYMBOL) {
                    sink.symbol(t.getString(r, c));
                } else if (types.get(c).isDouble()) {
                    sink.value(t.getDouble(r, c));
                } else {
                    sink.value(t.getLong(r, c));
                }
            }
            sink.endRow();
        }
        sink.end(null);
        final int sent = to - portal.next;
        portal.next = to;
        if (to < t.rowCount()) {
            PgProxy.simple(out(), 's');
        } else {
            PgProxy.commandComplete(out(), "SELECT " + sent);
        }
    }
}
