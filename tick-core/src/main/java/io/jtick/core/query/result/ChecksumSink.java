package io.jtick.core.query.result;

import io.jtick.core.query.model.ValueType;

import java.util.List;

/**
 * A sink that reads every value of a result and keeps only a checksum of them, as a client consuming
 * the stream would without the cost of encoding it: the query warm-up and the benchmarks run queries into it.
 */
public final class ChecksumSink implements ResultSink {
    private long sum;

    /** The checksum of every value so far (a fold of the values, the symbols' lengths and the rows). */
    public long sum() {
        return sum;
    }

    @Override
    public void begin(final List<String> columns, final List<ValueType> types) {
    }

    @Override
    public void value(final long v) {
        sum += v;
    }

    @Override
    public void value(final double v) {
        sum += Double.doubleToRawLongBits(v);
    }

    @Override
    public void symbol(final String s) {
        sum += s.length();
    }

    @Override
    public void nullValue() {
        sum++;
    }

    @Override
    public void endRow() {
        sum += 31;
    }

    @Override
    public void end(final ResultStats stats) {
    }
}
