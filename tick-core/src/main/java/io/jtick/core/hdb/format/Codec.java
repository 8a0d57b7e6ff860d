package io.jtick.core.hdb.format;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.xerial.snappy.Snappy;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Block codecs of a column file: none, lz4 (lz4-java, fast compressor at level 0/1, high
 * compressor at 2..17), snappy (snappy-java), zstd (zstd-jni, levels {@link Zstd#minCompressionLevel()}..22).
 * Codecs work on whole blocks held in byte arrays; decompression is told the raw length and fails
 * (never returns short data) when the stored bytes do not decode to exactly that many bytes.
 */
public enum Codec {
    NONE(1, "none"),
    LZ4(2, "lz4"),
    SNAPPY(3, "snappy"),
    ZSTD(4, "zstd");

    private static final LZ4Factory LZ4_FACTORY = lz4Factory();
    private static final LZ4SafeDecompressor LZ4_DECOMPRESSOR = LZ4_FACTORY.safeDecompressor();
    private static final LZ4Compressor[] LZ4_COMPRESSORS = new LZ4Compressor[18];
    /** One zstd decompression context per reading thread: a context per call costs more than a small block's decoding. */
    private static final ThreadLocal<ZstdDecompressCtx> ZSTD_CONTEXT = ThreadLocal.withInitial(ZstdDecompressCtx::new);

    static {
        LZ4_COMPRESSORS[0] = LZ4_FACTORY.fastCompressor();
        LZ4_COMPRESSORS[1] = LZ4_COMPRESSORS[0];
        for (int level = 2; level < LZ4_COMPRESSORS.length; level++) {
            LZ4_COMPRESSORS[level] = LZ4_FACTORY.highCompressor(level);
        }
    }

    private final int code;
    private final String codecName;

    /**
     * lz4-java's native (JNI) codec, else its fastest pure-Java one. Not {@code LZ4Factory.fastestInstance()}:
     * that declines the native library whenever lz4-java is not on the system class loader, which is
     * the case in every service's executable jar, and its Java decompressor is about 3.5× slower
     * (the compression study's lz4 scan: 67–77 ms of CPU from the hdb-service jar, 19 ms with JNI).
     */
    private static LZ4Factory lz4Factory() {
        try {
            return LZ4Factory.nativeInstance();
        } catch (final LinkageError | RuntimeException e) {
            return LZ4Factory.fastestJavaInstance();
        }
    }

    /** The lz4-java codecs jtick uses everywhere (the Parquet pages too): the native (JNI) ones where they load, else pure Java. */
    public static LZ4Factory lz4() {
        return LZ4_FACTORY;
    }

    Codec(final int code, final String codecName) {
        this.code = code;
        this.codecName = codecName;
    }

    /** Code stored in a column file header. */
    public int code() {
        return code;
    }

    /** Name used in encodings ({@code zstd:3}) and reports. */
    public String codecName() {
        return codecName;
    }

    /** Codec of a header code, or null. */
    public static Codec fromCode(final int code) {
        for (final Codec c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return null;
    }

    /** Codec by name (case-insensitive). */
    public static Codec fromName(final String name) {
        if ("plain".equalsIgnoreCase(name)) {
            return NONE; // the users' word for values stored as they are (memory-mapped)
        }
        for (final Codec c : values()) {
            if (c.codecName.equalsIgnoreCase(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown codec [codec=" + name + ", known=none (plain)|lz4|snappy|zstd]");
    }

    /** Level used when an encoding names none. */
    public int defaultLevel() {
        return this == ZSTD ? 3 : 0;
    }

    /** Checks a level for this codec. */
    public void checkLevel(final int level) {
        final boolean ok = switch (this) {
            case NONE, SNAPPY -> level == 0;
            case LZ4 -> level >= 0 && level <= 17;
            case ZSTD -> level >= -7 && level <= 22 && level != 0;
            default -> false;
        };
        if (!ok) {
            throw new IllegalArgumentException("level out of range [codec=" + codecName + ", level=" + level
                + ", range=" + levelRange() + "]");
        }
    }

    private String levelRange() {
        return switch (this) {
            case NONE, SNAPPY -> "none";
            case LZ4 -> "0..17";
            case ZSTD -> "-7..-1, 1..22";
            default -> "?";
        };
    }

    /** Bytes a compressed block of {@code rawLength} bytes may need. */
    public int maxCompressedLength(final int rawLength) {
        return switch (this) {
            case NONE -> rawLength;
            case LZ4 -> LZ4_COMPRESSORS[0].maxCompressedLength(rawLength);
            case SNAPPY -> Snappy.maxCompressedLength(rawLength);
            case ZSTD -> (int) Zstd.compressBound(rawLength);
            default -> throw new IllegalStateException("unhandled codec [codec=" + this + "]");
        };
    }

    /**
     * Compresses {@code src[srcOff, srcOff+length)} into {@code dst} from {@code dstOff}; {@code dst}
     * must have {@link #maxCompressedLength} bytes free. Returns the compressed length.
     */
    public int compress(final byte[] src, final int srcOff, final int length, final byte[] dst, final int dstOff, final int level)
        throws IOException {
        switch (this) {
            case NONE:
                System.arraycopy(src, srcOff, dst, dstOff, length);
                return length;
            case LZ4:
                return LZ4_COMPRESSORS[level].compress(src, srcOff, length, dst, dstOff, dst.length - dstOff);
            case SNAPPY:
                return Snappy.compress(src, srcOff, length, dst, dstOff);
            case ZSTD:
                final long n = Zstd.compressByteArray(dst, dstOff, dst.length - dstOff, src, srcOff, length, level);
                if (Zstd.isError(n)) {
                    throw new IOException("zstd compression failed [error=" + Zstd.getErrorName(n) + "]");
                }
                return (int) n;
            default:
                throw new IllegalStateException("unhandled codec [codec=" + this + "]");
        }
    }

    /**
     * Decompresses {@code src[srcOff, srcOff+length)} (a direct buffer: the mapped file, or a block
     * read into one) into the direct buffer {@code dst} from 0, {@code rawLength} bytes, without
     * copying the stored bytes onto the heap first.
     *
     * @throws IOException when the bytes are not a valid block of exactly {@code rawLength} bytes
     */
    public void decompress(final ByteBuffer src, final int srcOff, final int length, final ByteBuffer dst, final int rawLength)
        throws IOException {
        final long n;
        switch (this) {
            case NONE:
                if (length != rawLength) {
                    throw new IOException("stored length differs from raw length [stored=" + length + ", raw=" + rawLength + "]");
                }
                dst.put(0, src, srcOff, length);
                return;
            case LZ4:
                try {
                    n = LZ4_DECOMPRESSOR.decompress(src, srcOff, length, dst, 0, rawLength);
                } catch (final RuntimeException e) {
                    throw new IOException("lz4 block does not decode: " + e.getMessage(), e);
                }
                break;
            case SNAPPY:
                try {
                    final ByteBuffer in = src.duplicate();
                    in.limit(srcOff + length).position(srcOff);
                    if (Snappy.uncompressedLength(in) != rawLength) {
                        throw new IOException("snappy block has the wrong raw length [raw=" + rawLength + "]");
                    }
                    final ByteBuffer out = dst.duplicate();
                    out.clear();
                    n = Snappy.uncompress(in, out);
                } catch (final IOException e) {
                    throw e;
                } catch (final RuntimeException e) {
                    throw new IOException("snappy block does not decode: " + e.getMessage(), e);
                }
                break;
            case ZSTD:
                try {
                    n = ZSTD_CONTEXT.get().decompressDirectByteBuffer(dst, 0, rawLength, src, srcOff, length);
                } catch (final RuntimeException e) {
                    throw new IOException("zstd block does not decode: " + e.getMessage(), e);
                }
                break;
            default:
                throw new IllegalStateException("unhandled codec [codec=" + this + "]");
        }
        if (n != rawLength) {
            throw new IOException("block decoded to the wrong length [codec=" + codecName + ", expected=" + rawLength
                + ", got=" + n + "]");
        }
    }
}
