package io.jtick.parquet;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * jtick's column types as Parquet types, as pyarrow, DuckDB and polars read them without hints:
 * timestamp is INT64 {@code TIMESTAMP(NANOS, UTC)}, symbol and char are UTF-8 strings (symbol
 * dictionary-encoded), int16 and byte are INT32 annotated {@code INT(16|8, signed)}, the rest their
 * plain Parquet type. Every column is {@code required} (jtick has no nulls).
 */
final class ParquetSchemas {
    /** Footer key-value metadata jtick writes and reads back. */
    static final String KEY_TABLE = "jtick.table";
    static final String KEY_DATE = "jtick.date";
    static final String KEY_SCHEMA = "jtick.schema";
    static final String KEY_SYMS = "jtick.syms";

    private ParquetSchemas() {
    }

    /** The Parquet message type of a table. */
    static MessageType of(final TableSchema schema) {
        final List<Type> fields = new ArrayList<>();
        for (int c = 0; c < schema.columnCount(); c++) {
            fields.add(field(schema.column(c).name(), schema.type(c)));
        }
        return new MessageType(schema.name(), fields);
    }

    private static PrimitiveType field(final String name, final ColumnType type) {
        return switch (type) {
            case TIMESTAMP -> Types.required(PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.NANOS)).named(name);
            case SYMBOL, CHAR -> Types.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(name);
            case FLOAT64 -> Types.required(PrimitiveTypeName.DOUBLE).named(name);
            case FLOAT32 -> Types.required(PrimitiveTypeName.FLOAT).named(name);
            case INT64 -> Types.required(PrimitiveTypeName.INT64).named(name);
            case INT32 -> Types.required(PrimitiveTypeName.INT32).named(name);
            case INT16 -> Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named(name);
            case BYTE -> Types.required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named(name);
            case BOOL -> Types.required(PrimitiveTypeName.BOOLEAN).named(name);
        };
    }

    /**
     * Why a Parquet column cannot load into a jtick column of {@code type}, or null when it can:
     * the physical type must match, timestamps may be in any unit (they are scaled to
     * nanoseconds), integers may be narrower, strings are read for symbols and chars.
     */
    static String mismatch(final Type found, final ColumnType type) {
        if (!found.isPrimitive()) {
            return "a nested " + found.getName() + " where jtick has " + type.typeName();
        }
        if (found.isRepetition(Type.Repetition.REPEATED)) {
            return "a repeated column where jtick has " + type.typeName();
        }
        final PrimitiveType p = found.asPrimitiveType();
        final PrimitiveTypeName n = p.getPrimitiveTypeName();
        final LogicalTypeAnnotation l = p.getLogicalTypeAnnotation();
        final boolean ok = switch (type) {
            case TIMESTAMP -> n == PrimitiveTypeName.INT64 && l instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
            case SYMBOL -> n == PrimitiveTypeName.BINARY && (l == null || l instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation);
            case CHAR -> (n == PrimitiveTypeName.BINARY || n == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
                && (l == null || l instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation);
            case FLOAT64 -> n == PrimitiveTypeName.DOUBLE || n == PrimitiveTypeName.FLOAT;
            case FLOAT32 -> n == PrimitiveTypeName.FLOAT;
            case INT64 -> (n == PrimitiveTypeName.INT64 || n == PrimitiveTypeName.INT32) && plainInt(l);
            case INT32, INT16, BYTE -> n == PrimitiveTypeName.INT32 && plainInt(l) && bits(l) <= bits(type);
            case BOOL -> n == PrimitiveTypeName.BOOLEAN;
        };
        return ok ? null : describe(p) + " where jtick has " + type.typeName();
    }

    private static boolean plainInt(final LogicalTypeAnnotation l) {
        return l == null || l instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && i.isSigned();
    }

    private static int bits(final LogicalTypeAnnotation l) {
        return l instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i ? i.getBitWidth() : 32;
    }

    private static int bits(final ColumnType t) {
        return t.width() * 8;
    }

    /** {@code INT64 TIMESTAMP(MICROS,true)}, {@code BINARY STRING}, ... */
    static String describe(final PrimitiveType p) {
        final LogicalTypeAnnotation l = p.getLogicalTypeAnnotation();
        return p.getPrimitiveTypeName() + (l == null ? "" : " " + l);
    }

    /** Nanoseconds per unit of a Parquet timestamp column. */
    static long nanosPerUnit(final PrimitiveType p) {
        if (p.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
            return switch (t.getUnit()) {
                case MILLIS -> 1_000_000L;
                case MICROS -> 1_000L;
                case NANOS -> 1L;
            };
        }
        return 1L;
    }

    /** {@link #KEY_SYMS}'s value: one line per sym, {@code from<TAB>to<TAB>name}. */
    static String symsText(final SymRanges syms) {
        final StringBuilder sb = new StringBuilder(syms.count() * 16);
        for (int k = 0; k < syms.count(); k++) {
            sb.append(syms.from(k)).append('\t').append(syms.to(k)).append('\t').append(syms.name(k)).append('\n');
        }
        return sb.toString();
    }

    /** Reads {@link #symsText}'s lines back; a bad line is a corrupt file. */
    static SymRanges parseSyms(final Path file, final String text) throws CorruptPartitionException {
        final List<String> names = new ArrayList<>();
        final List<int[]> ranges = new ArrayList<>();
        int at = 0;
        while (at < text.length()) {
            final int nl = text.indexOf('\n', at);
            final String line = text.substring(at, nl < 0 ? text.length() : nl);
            at = nl < 0 ? text.length() : nl + 1;
            final int t1 = line.indexOf('\t');
            final int t2 = t1 < 0 ? -1 : line.indexOf('\t', t1 + 1);
            if (t2 < 0) {
                throw new CorruptPartitionException(file, -1, "bad jtick.syms line [line=" + line + "]");
            }
            ranges.add(new int[] {Integer.parseInt(line.substring(0, t1)), Integer.parseInt(line.substring(t1 + 1, t2))});
            names.add(line.substring(t2 + 1));
        }
        final int[] from = new int[names.size()];
        final int[] to = new int[names.size()];
        for (int k = 0; k < from.length; k++) {
            from[k] = ranges.get(k)[0];
            to[k] = ranges.get(k)[1];
        }
        return new SymRanges(names.toArray(new String[0]), from, to);
    }
}
