package io.jtick.parquet;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import io.jtick.core.hdb.format.Codec;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Parquet page compression through the codec libraries jtick's own column files use (zstd-jni,
 * snappy-java, lz4-java), so that neither writing nor reading goes through Hadoop's codec
 * classes and their {@code Configuration} (which would pull Hadoop's XML and collection
 * libraries into the HDB). The formats are Parquet's: ZSTD frames, raw Snappy, LZ4_RAW blocks.
 * Thread-safe; a zstd page is compressed through its thread's reused buffers, and the bytes
 * returned are valid until that thread compresses again (parquet-java's page writer copies them first).
 */
final class PageCodecs implements CompressionCodecFactory {
    static final PageCodecs INSTANCE = new PageCodecs();
    /** zstd level of Parquet pages (parquet-java's default too). */
    static final int ZSTD_LEVEL = 3;
    /** Native where it loads: {@code LZ4Factory.fastestInstance()} declines it in an executable jar ({@link Codec#lz4()}). */
    private static final LZ4Compressor LZ4 = Codec.lz4().fastCompressor();
    /** The safe decompressor: it reads no byte outside the page, whatever the file says. */
    private static final LZ4SafeDecompressor UNLZ4 = Codec.lz4().safeDecompressor();
    /** One zstd context per thread, kept: a context per page would allocate and set up zstd's tables every page. */
    private static final ThreadLocal<ZstdCompressCtx> ZSTD = ThreadLocal.withInitial(() -> new ZstdCompressCtx().setLevel(ZSTD_LEVEL));
    private static final ThreadLocal<ZstdDecompressCtx> UNZSTD = ThreadLocal.withInitial(ZstdDecompressCtx::new);

    /** Each writing thread's page buffers (uncompressed in, compressed out), reused from page to page. */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private PageCodecs() {
    }

    /** A page's bytes gathered into a reused array (one copy, no allocation once grown). */
    private static final class Scratch extends OutputStream {
        byte[] in = new byte[1 << 16];
        byte[] out = new byte[0];
        private int n;

        int fill(final BytesInput bytes) throws IOException {
            final long size = bytes.size();
            if (in.length < size) {
                in = new byte[(int) Math.max(size, 2L * in.length)];
            }
            n = 0;
            bytes.writeAllTo(this);
            return n;
        }

        @Override
        public void write(final int b) {
            in[n++] = (byte) b;
        }

        @Override
        public void write(final byte[] b, final int off, final int len) {
            System.arraycopy(b, off, in, n, len);
            n += len;
        }
    }

    @Override
    public BytesInputCompressor getCompressor(final CompressionCodecName codec) {
        check(codec);
        return new BytesInputCompressor() {
            @Override
            public BytesInput compress(final BytesInput bytes) throws IOException {
                if (codec != CompressionCodecName.ZSTD) {
                    return BytesInput.from(PageCodecs.compress(codec, bytes.toByteArray()));
                }
                // through this thread's buffers: parquet-java's page writer copies the compressed bytes before it compresses again
                final Scratch s = SCRATCH.get();
                final int n = s.fill(bytes);
                final int bound = (int) Zstd.compressBound(n);
                if (s.out.length < bound) {
                    s.out = new byte[Math.max(bound, 2 * s.out.length)];
                }
                final int size = ZSTD.get().compressByteArray(s.out, 0, s.out.length, s.in, 0, n);
                return BytesInput.from(s.out, 0, size);
            }

            @Override
            public CompressionCodecName getCodecName() {
                return codec;
            }

            @Override
            public void release() {
                // nothing held
            }
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(final CompressionCodecName codec) {
        check(codec);
        return new BytesInputDecompressor() {
            @Override
            public BytesInput decompress(final BytesInput bytes, final int uncompressedSize) throws IOException {
                return BytesInput.from(PageCodecs.decompress(codec, bytes.toByteArray(), uncompressedSize));
            }

            @Override
            public void decompress(final ByteBuffer input, final int compressedSize, final ByteBuffer output, final int uncompressedSize)
                throws IOException {
                final byte[] in = new byte[compressedSize];
                input.duplicate().get(in);
                output.put(PageCodecs.decompress(codec, in, uncompressedSize));
            }

            @Override
            public void release() {
                // nothing held
            }
        };
    }

    @Override
    public void release() {
        // nothing held
    }

    private static void check(final CompressionCodecName codec) {
        switch (codec) {
            case UNCOMPRESSED, ZSTD, SNAPPY, LZ4_RAW -> {
            }
            default -> throw new IllegalArgumentException("unsupported Parquet codec [codec=" + codec + ", supported=UNCOMPRESSED,"
                + "ZSTD,SNAPPY,LZ4_RAW]");
        }
    }

    static byte[] compress(final CompressionCodecName codec, final byte[] in) throws IOException {
        return switch (codec) {
            case ZSTD -> ZSTD.get().compress(in);
            case SNAPPY -> Snappy.compress(in);
            case LZ4_RAW -> {
                final byte[] out = new byte[LZ4.maxCompressedLength(in.length)];
                final int n = LZ4.compress(in, 0, in.length, out, 0, out.length);
                yield java.util.Arrays.copyOf(out, n);
            }
            default -> in;
        };
    }

    static byte[] decompress(final CompressionCodecName codec, final byte[] in, final int size) throws IOException {
        try {
            return switch (codec) {
                case ZSTD -> {
                    final byte[] out = new byte[size];
                    final int n = UNZSTD.get().decompressByteArray(out, 0, size, in, 0, in.length);
                    if (n != size) {
                        throw new IOException("bad zstd page [expected=" + size + ", got=" + n + "]");
                    }
                    yield out;
                }
                case SNAPPY -> {
                    final byte[] out = new byte[size];
                    final int n = Snappy.uncompress(in, 0, in.length, out, 0);
                    if (n != size) {
                        throw new IOException("bad snappy page [expected=" + size + ", got=" + n + "]");
                    }
                    yield out;
                }
                case LZ4_RAW -> {
                    final byte[] out = new byte[size];
                    final int n = UNLZ4.decompress(in, 0, in.length, out, 0, size);
                    if (n != size) {
                        throw new IOException("bad lz4 page [expected=" + size + ", got=" + n + "]");
                    }
                    yield out;
                }
                default -> in;
            };
        } catch (final RuntimeException e) {
            throw new IOException("bad " + codec + " page: " + e.getMessage(), e);
        }
    }
}
