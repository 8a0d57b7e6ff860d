package io.jtick.core.query.result;

import io.jtick.core.query.model.ValueType;
import java.util.List;

/**
 * Where a query's result goes, row by row as the engine produces it: {@link #begin}, then per row
 * one call per column in order ({@code value(long)} for long-kind {@link ValueType}s,
 * {@code value(double)} for floats (NaN is null), {@code symbol} for symbols, {@code nullValue}
 * for a null of any type) and {@link #endRow}, then {@link #end}. Writers stream to a socket as
 * they go; {@link ResultTable} keeps the rows. Called from the query's thread only.
 */
public interface ResultSink {
    void begin(List<String> columns, List<ValueType> types);

    void value(long v);

    void value(double v);

    void symbol(String s);

    void nullValue();

    void endRow();

    void end(ResultStats stats);
}
