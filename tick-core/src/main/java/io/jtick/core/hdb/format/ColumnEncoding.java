package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;

import java.util.Locale;

/**
 * How one column is stored: a {@link Transform} then a {@link Codec} at a level. Written
 * {@code <transform>/<codec>[:<level>]}, e.g. {@code dod+shuffle/zstd:3}, {@code none/lz4},
 * {@code shuffle/zstd:-1}; a bare codec ({@code lz4}, {@code zstd:22}) means no transform.
 *
 * @param transform transform applied to each block before the codec
 * @param codec     block codec
 * @param level     codec level (0 for codecs without levels)
 */
public record ColumnEncoding(Transform transform, Codec codec, int level) {
    /** Plain little-endian values, memory-mapped when read. */
    public static final ColumnEncoding PLAIN = new ColumnEncoding(Transform.NONE, Codec.NONE, 0);

    public ColumnEncoding {
        if (transform == null || codec == null) {
            throw new IllegalArgumentException("transform and codec are required");
        }
        codec.checkLevel(level);
    }

    /** True when values are stored as-is (the file is read in place through a memory map). */
    public boolean isPlain() {
        return codec == Codec.NONE && transform.isIdentity();
    }

    /** True when the writer picks the transform per column ({@code auto/<codec>}). */
    public boolean isAuto() {
        return transform.kind() == Transform.Kind.AUTO;
    }

    /** Parses the written form (see the class comment). */
    public static ColumnEncoding parse(final String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty encoding");
        }
        final String t = text.trim().toLowerCase(Locale.ROOT);
        final int slash = t.indexOf('/');
        final Transform transform = slash < 0 ? Transform.NONE : Transform.parse(t.substring(0, slash));
        final String codecPart = slash < 0 ? t : t.substring(slash + 1);
        final int colon = codecPart.indexOf(':');
        final Codec codec = Codec.fromName(colon < 0 ? codecPart : codecPart.substring(0, colon));
        final int level;
        if (colon < 0) {
            level = codec.defaultLevel();
        } else {
            try {
                level = Integer.parseInt(codecPart.substring(colon + 1));
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException("bad codec level [encoding=" + text + "]", e);
            }
        }
        return new ColumnEncoding(transform, codec, level);
    }

    /** This encoding for a column type: the transform is dropped where it does not apply (e.g. delta on floats). */
    public ColumnEncoding forType(final ColumnType type) {
        return transform.appliesTo(type) ? this : new ColumnEncoding(Transform.NONE, codec, level);
    }

    @Override
    public String toString() {
        final String c = codec == Codec.ZSTD || codec == Codec.LZ4 && level > 0 ? codec.codecName() + ":" + level : codec.codecName();
        return transform.isIdentity() ? c : transform + "/" + c;
    }
}
