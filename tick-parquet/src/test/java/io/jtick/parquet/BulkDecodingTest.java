package io.jtick.parquet;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesReader;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.apache.parquet.column.values.dictionary.DictionaryValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bulk decoders give, value for value, what parquet-java's own readers give on pages
 * parquet-java's writers wrote: many random pages of every bit width, runs of every length,
 * pages cut where a run or a miniblock crosses the values asked for, and pages at the very end
 * of their array (where the decoder must not load past it) as well as inside a larger one.
 */
class BulkDecodingTest {
    private static final HeapByteBufferAllocator HEAP = HeapByteBufferAllocator.getInstance();

    @Test
    void hybridIdsEqualParquetJavasDecoderForEveryBitWidth() throws IOException {
        final SplittableRandom random = new SplittableRandom(28);
        for (int width = 0; width <= 32; width++) {
            for (int round = 0; round < 12; round++) {
                final int n = round == 0 ? 1 : random.nextInt(1, 20_000);
                final int[] values = hybridValues(random, width, n, round);
                final RunLengthBitPackingHybridEncoder enc = new RunLengthBitPackingHybridEncoder(width, 64, 1 << 20, HEAP);
                for (final int v : values) {
                    enc.writeInt(v);
                }
                final byte[] page = enc.toBytes().toByteArray();
                final RunLengthBitPackingHybridDecoder dec = new RunLengthBitPackingHybridDecoder(width, new ByteArrayInputStream(page));
                final int[] expected = new int[n];
                for (int i = 0; i < n; i++) {
                    expected[i] = dec.readInt();
                }
                assertThat(expected).as("parquet-java round trip, width %d", width).isEqualTo(values);
                for (final int at : new int[] {0, 5}) {
                    // the page alone in its array (no bytes after it) and inside a larger one
                    final byte[] inside = new byte[at + page.length + at];
                    System.arraycopy(page, 0, inside, at, page.length);
                    final int[] got = new int[n + 3];
                    BulkDecoding.hybrid(inside, at, at + page.length, width, n, got, 3);
                    assertThat(Arrays.copyOfRange(got, 3, n + 3)).as("width %d, n %d, at %d", width, n, at).isEqualTo(expected);
                }
                // fewer values than the page holds: a run crosses the end of what is asked for
                final int part = random.nextInt(0, n + 1);
                final int[] head = new int[part];
                BulkDecoding.hybrid(page, 0, page.length, width, part, head, 0);
                assertThat(head).isEqualTo(Arrays.copyOf(expected, part));
            }
        }
    }

    /** Runs of repeats of every length, random values, and mixes, all within {@code width} bits. */
    private static int[] hybridValues(final SplittableRandom random, final int width, final int n, final int round) {
        final long bound = 1L << width;
        final int[] v = new int[n];
        for (int i = 0; i < n;) {
            final int run = switch (round % 4) {
                case 0 -> 1;
                case 1 -> random.nextInt(1, 20);
                case 2 -> random.nextInt(1, 600);
                default -> random.nextBoolean() ? 1 : random.nextInt(7, 10);
            };
            final int x = (int) (round % 5 == 4 ? bound - 1 : random.nextLong(bound));
            for (int k = 0; k < run && i < n; k++) {
                v[i++] = x;
            }
        }
        return v;
    }

    @Test
    void dictionaryIdsReadTheBitWidthByteAsParquetJavaDoes() throws IOException {
        final SplittableRandom random = new SplittableRandom(7);
        for (int width = 0; width <= 20; width++) {
            final int n = random.nextInt(1, 9_000);
            final int[] ids = hybridValues(random, width, n, width);
            final RunLengthBitPackingHybridEncoder enc = new RunLengthBitPackingHybridEncoder(width, 64, 1 << 20, HEAP);
            for (final int v : ids) {
                enc.writeInt(v);
            }
            final byte[] body = enc.toBytes().toByteArray();
            final byte[] page = new byte[body.length + 1];
            page[0] = (byte) width;
            System.arraycopy(body, 0, page, 1, body.length);
            final DictionaryValuesReader r = new DictionaryValuesReader(null);
            r.initFromPage(n, ByteBufferInputStream.wrap(ByteBuffer.wrap(page)));
            final int[] expected = new int[n];
            for (int i = 0; i < n; i++) {
                expected[i] = r.readValueDictionaryId();
            }
            final int[] got = new int[n];
            BulkDecoding.dictionaryIds(page, 0, page.length, n, got, 0);
            assertThat(got).as("width %d", width).isEqualTo(expected).isEqualTo(ids);
        }
    }

    @Test
    void aLastBitPackedGroupCutShortAfterTheValuesIsRead() throws IOException {
        // one bit-packed run of 2 groups (16 values) at width 3, but only the bytes for 10 values written
        final int[] values = {1, 2, 3, 4, 5, 6, 7, 0, 1, 2};
        final byte[] page = new byte[1 + 4];
        page[0] = (byte) ((2 << 1) | 1);
        long bits = 0;
        for (int i = 0; i < values.length; i++) {
            bits |= (long) values[i] << (3 * i);
        }
        for (int k = 0; k < 4; k++) {
            page[1 + k] = (byte) (bits >>> (8 * k));
        }
        final int[] got = new int[values.length];
        BulkDecoding.hybrid(page, 0, page.length, 3, values.length, got, 0);
        assertThat(got).isEqualTo(values);
    }

    @Test
    void deltaLongsEqualParquetJavasReaderOnEveryShapeOfPage() throws IOException {
        final SplittableRandom random = new SplittableRandom(42);
        final int[][] layouts = {{128, 4}, {128, 1}, {256, 8}, {512, 4}, {1024, 32}};
        for (int round = 0; round < 240; round++) {
            final int[] layout = layouts[round % layouts.length];
            // around the block and miniblock edges as well as long pages
            final int n = switch (round % 5) {
                case 0 -> 1 + random.nextInt(3);
                case 1 -> layout[0] / layout[1] * random.nextInt(1, 4) + random.nextInt(-1, 2) + 1;
                case 2 -> layout[0] * random.nextInt(1, 4) + random.nextInt(-1, 2) + 1;
                default -> random.nextInt(1, 20_000);
            };
            final long[] values = deltaValues(random, n, round);
            final DeltaBinaryPackingValuesWriterForLong w = new DeltaBinaryPackingValuesWriterForLong(layout[0], layout[1], 64, 1 << 20,
                HEAP);
            for (final long v : values) {
                w.writeLong(v);
            }
            final byte[] page = w.getBytes().toByteArray();
            final DeltaBinaryPackingValuesReader r = new DeltaBinaryPackingValuesReader();
            r.initFromPage(n, ByteBufferInputStream.wrap(ByteBuffer.wrap(page)));
            final long[] expected = new long[n];
            for (int i = 0; i < n; i++) {
                expected[i] = r.readLong();
            }
            assertThat(expected).as("parquet-java round trip, round %d", round).isEqualTo(values);
            for (final int at : new int[] {0, 9}) {
                final byte[] inside = new byte[at + page.length + at];
                System.arraycopy(page, 0, inside, at, page.length);
                final long[] got = new long[n + 2];
                BulkDecoding.deltaLongs(inside, at, at + page.length, n, got, 2);
                assertThat(Arrays.copyOfRange(got, 2, n + 2)).as("round %d, n %d, layout %s, at %d", round, n, Arrays.toString(layout), at)
                    .isEqualTo(expected);
            }
            final int part = random.nextInt(0, n + 1);
            final long[] head = new long[part];
            BulkDecoding.deltaLongs(page, 0, page.length, part, head, 0);
            assertThat(head).isEqualTo(Arrays.copyOf(expected, part));
        }
    }

    /** Timestamps that rise, random walks, constants, and extremes that need 64-bit deltas. */
    private static long[] deltaValues(final SplittableRandom random, final int n, final int round) {
        final long[] v = new long[n];
        long x = random.nextLong();
        final int shape = (round / 5) % 6;
        for (int i = 0; i < n; i++) {
            v[i] = switch (shape) {
                case 0 -> x += random.nextLong(0, 1_000_000);
                case 1 -> x += random.nextLong(-1000, 1000);
                case 2 -> x;
                case 3 -> random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
                case 4 -> random.nextLong();
                default -> x += random.nextLong(1L << random.nextInt(1, 62));
            };
        }
        return v;
    }

    @Test
    void deltaIntsDecodeThroughTheLongPathAsParquetJavaReadsThem() throws IOException {
        final SplittableRandom random = new SplittableRandom(3);
        for (int round = 0; round < 30; round++) {
            final int n = random.nextInt(1, 10_000);
            final int[] values = new int[n];
            int x = random.nextInt();
            for (int i = 0; i < n; i++) {
                values[i] = switch (round % 3) {
                    case 0 -> random.nextInt();
                    case 1 -> x += random.nextInt(-50, 50);
                    default -> 100 * random.nextInt(1, 9);
                };
            }
            final DeltaBinaryPackingValuesWriterForInteger w = new DeltaBinaryPackingValuesWriterForInteger(128, 4, 64, 1 << 20, HEAP);
            for (final int v : values) {
                w.writeInteger(v);
            }
            final byte[] page = w.getBytes().toByteArray();
            final DeltaBinaryPackingValuesReader r = new DeltaBinaryPackingValuesReader();
            r.initFromPage(n, ByteBufferInputStream.wrap(ByteBuffer.wrap(page)));
            final long[] got = new long[n];
            BulkDecoding.deltaLongs(page, 0, page.length, n, got, 0);
            for (int i = 0; i < n; i++) {
                assertThat((int) got[i]).as("round %d, value %d", round, i).isEqualTo(r.readInteger()).isEqualTo(values[i]);
            }
        }
    }

    @Test
    void truncatedOrMalformedPagesFailWithAClearError() throws IOException {
        final RunLengthBitPackingHybridEncoder enc = new RunLengthBitPackingHybridEncoder(7, 64, 1 << 20, HEAP);
        final SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            enc.writeInt(random.nextInt(128));
        }
        final byte[] ids = enc.toBytes().toByteArray();
        assertThatThrownBy(() -> BulkDecoding.hybrid(ids, 0, ids.length / 2, 7, 1000, new int[1000], 0))
            .isInstanceOf(IOException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> BulkDecoding.hybrid(ids, 0, ids.length, 33, 10, new int[10], 0))
            .isInstanceOf(IOException.class).hasMessageContaining("bit width");
        assertThatThrownBy(() -> BulkDecoding.dictionaryIds(new byte[0], 0, 0, 5, new int[5], 0))
            .isInstanceOf(IOException.class).hasMessageContaining("truncated");

        final DeltaBinaryPackingValuesWriterForLong w = new DeltaBinaryPackingValuesWriterForLong(128, 4, 64, 1 << 20, HEAP);
        for (int i = 0; i < 1000; i++) {
            w.writeLong(random.nextLong());
        }
        final byte[] deltas = w.getBytes().toByteArray();
        assertThatThrownBy(() -> BulkDecoding.deltaLongs(deltas, 0, deltas.length / 2, 1000, new long[1000], 0))
            .isInstanceOf(IOException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> BulkDecoding.deltaLongs(deltas, 0, deltas.length, 1001, new long[1001], 0))
            .isInstanceOf(IOException.class).hasMessageContaining("holds 1000 values");
        final byte[] badHeader = {(byte) 100, 4, 10, 0};
        assertThatThrownBy(() -> BulkDecoding.deltaLongs(badHeader, 0, badHeader.length, 10, new long[10], 0))
            .isInstanceOf(IOException.class).hasMessageContaining("bad DELTA_BINARY_PACKED header");
    }
}
