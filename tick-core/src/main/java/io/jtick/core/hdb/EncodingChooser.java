package io.jtick.core.hdb;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;

/**
 * Resolves {@code auto/<codec>}: encodes a sample of the column (up to {@link #SAMPLE_BLOCKS}
 * blocks spread over it) with each candidate transform ({@link Transform#candidates}) and the
 * codec, and keeps the smallest. Costs a few block compressions per candidate, not a pass over
 * the column.
 */
public final class EncodingChooser {
    static final int SAMPLE_BLOCKS = 4;

    private EncodingChooser() {
    }

    /** The concrete encoding for a column of {@code table} (rows in {@code order}, null for as-is). */
    static ColumnEncoding choose(final ColumnEncoding auto, final TableSegment table, final int column, final int[] order,
                                 final int blockRows) throws IOException {
        final ColumnType type = table.schema().type(column);
        final int rows = table.rowCount();
        final int w = type.width();
        final int blocks = Math.min(SAMPLE_BLOCKS, Math.max(1, (rows + blockRows - 1) / blockRows));
        final byte[] sample = new byte[blocks * blockRows * w];
        final int[] lengths = new int[blocks];
        final UnsafeBuffer view = new UnsafeBuffer(sample);
        final ColumnChunk chunk = new ColumnChunk();
        for (int b = 0; b < blocks; b++) {
            final int start = blocks == 1 ? 0 : (int) ((long) (rows - blockRows) * b / (blocks - 1));
            final int n = Math.min(blockRows, rows - Math.max(0, start));
            view.wrap(sample, b * blockRows * w, blockRows * w);
            if (n > 0) {
                PartitionWriter.copyRows(table, column, order, Math.max(0, start), n, chunk, view);
            }
            lengths[b] = Math.max(0, n) * w;
        }
        return choose(auto, type, sample, blockRows * w, lengths);
    }

    /** The concrete encoding for raw column bytes (the study). */
    public static ColumnEncoding choose(final ColumnEncoding auto, final ColumnType type, final byte[] raw, final int blockBytes)
        throws IOException {
        final int total = raw.length;
        final int blocks = Math.min(SAMPLE_BLOCKS, Math.max(1, (total + blockBytes - 1) / blockBytes));
        final byte[] sample = new byte[blocks * blockBytes];
        final int[] lengths = new int[blocks];
        for (int b = 0; b < blocks; b++) {
            final int start = blocks == 1 ? 0 : (int) ((long) Math.max(0, total - blockBytes) * b / (blocks - 1)) / type.width()
                * type.width();
            final int n = Math.min(blockBytes, total - start);
            System.arraycopy(raw, start, sample, b * blockBytes, n);
            lengths[b] = n;
        }
        return choose(auto, type, sample, blockBytes, lengths);
    }

    private static ColumnEncoding choose(final ColumnEncoding auto, final ColumnType type, final byte[] sample, final int stride,
                                         final int[] lengths) throws IOException {
        final Codec codec = auto.codec();
        final byte[] block = new byte[stride];
        final byte[] t1 = new byte[stride + Transform.SCALE_HEADER];
        final byte[] t2 = new byte[stride + Transform.SCALE_HEADER];
        final byte[] out = new byte[codec.maxCompressedLength(stride + Transform.SCALE_HEADER) + Transform.SCALE_HEADER];
        ColumnEncoding best = new ColumnEncoding(Transform.NONE, codec, auto.level());
        long bestBytes = Long.MAX_VALUE;
        for (final Transform t : Transform.candidates(type)) {
            long bytes = 0;
            for (int b = 0; b < lengths.length; b++) {
                if (lengths[b] == 0) {
                    continue;
                }
                System.arraycopy(sample, b * stride, block, 0, lengths[b]);
                final byte[] src = t.encode(block, lengths[b], type, t1, t2);
                final int len = lengths[b] + t.overhead();
                bytes += codec == Codec.NONE ? len : codec.compress(src, 0, len, out, 0, auto.level());
            }
            if (bytes < bestBytes) {
                bestBytes = bytes;
                best = new ColumnEncoding(t, codec, auto.level());
            }
        }
        return best;
    }
}
