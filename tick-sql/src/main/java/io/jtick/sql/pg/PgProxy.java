package io.jtick.sql.pg;

import io.jtick.core.query.model.ValueType;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Encodes the backend's messages into a buffer: each {@code begin} writes the type byte and a
 * length placeholder, {@code end} fills the length in. Static, no state.
 */
final class PgProxy {
    private PgProxy() {
    }

    static int begin(final ByteBuf b, final char type) {
        b.writeByte(type);
        final int at = b.writerIndex();
        b.writeInt(0);
        return at;
    }

    static void end(final ByteBuf b, final int at) {
        b.setInt(at, b.writerIndex() - at);
    }

    static void cstring(final ByteBuf b, final String s) {
        b.writeCharSequence(s, StandardCharsets.UTF_8);
        b.writeByte(0);
    }

    static void authOk(final ByteBuf b) {
        final int at = begin(b, 'R');
        b.writeInt(0);
        end(b, at);
    }

    static void authCleartext(final ByteBuf b) {
        final int at = begin(b, 'R');
        b.writeInt(3);
        end(b, at);
    }

    static void authSasl(final ByteBuf b) {
        final int at = begin(b, 'R');
        b.writeInt(10);
        cstring(b, "SCRAM-SHA-256");
        b.writeByte(0);
        end(b, at);
    }

    static void authSaslStep(final ByteBuf b, final int code, final String data) {
        final int at = begin(b, 'R');
        b.writeInt(code);
        b.writeCharSequence(data, StandardCharsets.UTF_8);
        end(b, at);
    }

    static void parameterStatus(final ByteBuf b, final String name, final String value) {
        final int at = begin(b, 'S');
        cstring(b, name);
        cstring(b, value);
        end(b, at);
    }

    static void backendKey(final ByteBuf b, final int pid, final int secret) {
        final int at = begin(b, 'K');
        b.writeInt(pid);
        b.writeInt(secret);
        end(b, at);
    }

    /** ReadyForQuery, idle ('I'). */
    static void ready(final ByteBuf b) {
        final int at = begin(b, 'Z');
        b.writeByte('I');
        end(b, at);
    }

    static void simple(final ByteBuf b, final char type) {
        final int at = begin(b, type);
        end(b, at);
    }

    static void commandComplete(final ByteBuf b, final String tag) {
        final int at = begin(b, 'C');
        cstring(b, tag);
        end(b, at);
    }

    static void error(final ByteBuf b, final String sqlState, final String message) {
        final int at = begin(b, 'E');
        b.writeByte('S');
        cstring(b, "ERROR");
        b.writeByte('V');
        cstring(b, "ERROR");
        b.writeByte('C');
        cstring(b, sqlState);
        b.writeByte('M');
        cstring(b, message == null ? "" : message);
        b.writeByte(0);
        end(b, at);
    }

    static void fatal(final ByteBuf b, final String sqlState, final String message) {
        final int at = begin(b, 'E');
        b.writeByte('S');
        cstring(b, "FATAL");
        b.writeByte('V');
        cstring(b, "FATAL");
        b.writeByte('C');
        cstring(b, sqlState);
        b.writeByte('M');
        cstring(b, message);
        b.writeByte(0);
        end(b, at);
    }

    static void parameterDescription(final ByteBuf b, final int[] oids) {
        final int at = begin(b, 't');
        b.writeShort(oids.length);
        for (final int o : oids) {
            b.writeInt(o);
        }
        end(b, at);
    }

    /** RowDescription of the statement's columns; {@code binary[i]} for each column's format. */
    static void rowDescription(final ByteBuf b, final List<String> names, final List<ValueType> types, final boolean[] binary) {
        final int at = begin(b, 'T');
        b.writeShort(names.size());
        for (int i = 0; i < names.size(); i++) {
            cstring(b, names.get(i));
            b.writeInt(0);
            b.writeShort(0);
            b.writeInt(PgTypes.oid(types.get(i)));
            b.writeShort(PgTypes.size(types.get(i)));
            b.writeInt(PgTypes.modifier(types.get(i)));
            b.writeShort(binary != null && binary[i] ? 1 : 0);
        }
        end(b, at);
    }

    /** RowDescription of text columns (catalog answers, SHOW). */
    static void textRowDescription(final ByteBuf b, final List<String> names, final int[] oids) {
        final int at = begin(b, 'T');
        b.writeShort(names.size());
        for (int i = 0; i < names.size(); i++) {
            cstring(b, names.get(i));
            b.writeInt(0);
            b.writeShort(0);
            b.writeInt(oids == null ? PgTypes.TEXT : oids[i]);
            b.writeShort(-1);
            b.writeInt(-1);
            b.writeShort(0);
        }
        end(b, at);
    }

    /** A DataRow of text values (null for SQL NULL). */
    static void textRow(final ByteBuf b, final List<String> values) {
        final int at = begin(b, 'D');
        b.writeShort(values.size());
        for (final String v : values) {
            if (v == null) {
                b.writeInt(-1);
            } else {
                final int len = b.writerIndex();
                b.writeInt(0);
                final int n = b.writeCharSequence(v, StandardCharsets.UTF_8);
                b.setInt(len, n);
            }
        }
        end(b, at);
    }
}
