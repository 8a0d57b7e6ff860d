package io.jtick.bench;

import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The wire codec on a trade update of {@code r} rows (100 syms, dictionary of the distinct syms):
 * {@code encode} (what a feed does per update), {@code validate} (what the TP does before
 * journalling), {@code decode} (wrap plus reading every value, what a subscriber does) and
 * {@code roundTrip} (all three). Average time per frame; no allocation expected.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CodecBenchmark {
    @Param({"1", "10", "100"})
    public int r;

    private TableSchema schema;
    private byte[][] syms;
    private final UpdateEncoder encoder = new UpdateEncoder();
    private final UpdateDecoder decoder = new UpdateDecoder();
    private UpdateValidator validator;
    private ByteBuf scratch;
    private ByteBuf frame;
    private int frameLength;
    private long row;

    @Setup(Level.Trial)
    public void setUp() {
        schema = TableSchema.trade(0);
        syms = TradeFrames.syms(100);
        validator = new UpdateValidator(SchemaRegistry.builtIn(0));
        scratch = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, r, syms));
        frame = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, r, syms));
        frameLength = TradeFrames.encode(encoder, frame, schema, r, 0, syms, 1_700_000_000_000_000_000L, 0);
        if (validator.validate(frame, 0, frameLength) != ErrorCode.NONE) {
            throw new IllegalStateException(validator.reason());
        }
    }

    @Benchmark
    public int encode() {
        scratch.clear();
        row += r;
        return TradeFrames.encode(encoder, scratch, schema, r, row, syms, 1_700_000_000_000_000_000L, row);
    }

    @Benchmark
    public ErrorCode validate() {
        return validator.validate(frame, 0, frameLength);
    }

    @Benchmark
    public double decode() {
        return readAll(frame);
    }

    @Benchmark
    public double roundTrip() {
        scratch.clear();
        row += r;
        final int len = TradeFrames.encode(encoder, scratch, schema, r, row, syms, 1_700_000_000_000_000_000L, row);
        if (validator.validate(scratch, 0, len) != ErrorCode.NONE) {
            throw new IllegalStateException(validator.reason());
        }
        return readAll(scratch);
    }

    private double readAll(final ByteBuf b) {
        final UpdateDecoder d = decoder.wrap(b, 0);
        final int rows = d.rowCount();
        double sum = d.symCount();
        for (int code = 0; code < d.symCount(); code++) {
            sum += d.symLength(code) + b.getByte(d.symOffset(code));
        }
        for (int k = 0; k < rows; k++) {
            sum += d.timestamp(k) + d.symCode(k) + d.float64(TradeFrames.PRICE, k) + d.int64(TradeFrames.SIZE, k)
                + d.int8(TradeFrames.COND, k);
        }
        return sum;
    }

    @TearDown(Level.Trial)
    public void release() {
        scratch.release();
        frame.release();
    }
}
