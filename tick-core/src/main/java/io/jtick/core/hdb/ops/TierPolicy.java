package io.jtick.core.hdb.ops;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.TableFormat;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.read.ColdStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.schema.ColumnDef;

import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Storage tiers by partition age: each tier covers partitions up to {@code maxAgeDays} old (the
 * last one everything older) and says how its columns are encoded: a default, per-type defaults
 * and per-column overrides ({@code column} or {@code table.column}). The sym column is plain unless
 * a column override says otherwise: parted columns are not compressed. KX's advice, made the
 * default: hot (≤ 5 days) uncompressed, warm (≤ 30 days) lz4, cold zstd, each with the transform
 * that suits the column ({@code auto}).
 *
 * @param tiers ordered youngest first; ages strictly increasing
 */
public record TierPolicy(List<Tier> tiers) {
    /**
     * One tier.
     *
     * @param name       hot, warm, cold, ...
     * @param maxAgeDays oldest partition (days before today) in this tier; -1 for no limit (last tier only)
     * @param encoding   default encoding
     * @param types      per column type name ({@code timestamp}, {@code float64}, ...)
     * @param columns    per {@code column} or {@code table.column}
     * @param format     another table format and its compression ({@code parquet/zstd}), null for jtick's column files
     *                   (then {@code encoding}, {@code types} and {@code columns} apply)
     * @param objectStore the tier's partitions live in the object store ({@link io.jtick.core.hdb.read.ColdStore}), as
     *                   Parquet ({@code format}, {@code parquet/zstd} when null), not under the root
     */
    public record Tier(String name, int maxAgeDays, ColumnEncoding encoding, Map<String, ColumnEncoding> types,
                       Map<String, ColumnEncoding> columns, String format, boolean objectStore) {
        public Tier {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("tier name is required");
            }
            if (encoding == null) {
                throw new IllegalArgumentException("tier encoding is required [tier=" + name + "]");
            }
            types = Map.copyOf(types == null ? Map.of() : types);
            columns = Map.copyOf(columns == null ? Map.of() : columns);
            if (format != null) {
                format = format.trim().toLowerCase(Locale.ROOT);
                final TableFormat f = TableFormats.byName(formatName(format));
                if (f == null) {
                    throw new IllegalArgumentException("unknown table format [tier=" + name + ", format=" + format + ", known="
                        + TableFormats.names() + "]");
                }
                f.checkCompression(formatCompression(format));
            }
            if (objectStore && format != null && !"parquet".equals(formatName(format))) {
                throw new IllegalArgumentException("an object-store tier stores Parquet [tier=" + name + ", format=" + format + "]");
            }
        }

        /** A tier under the root: jtick's column files ({@code format} null) or another format. */
        public Tier(final String name, final int maxAgeDays, final ColumnEncoding encoding, final Map<String, ColumnEncoding> types,
                    final Map<String, ColumnEncoding> columns, final String format) {
            this(name, maxAgeDays, encoding, types, columns, format, false);
        }

        /** A tier in the object store ({@code format}: {@code parquet/zstd}, {@code parquet/snappy}, ...; null: {@code parquet/zstd}). */
        public static Tier objectStore(final String name, final int maxAgeDays, final String format) {
            return new Tier(name, maxAgeDays, ColumnEncoding.PLAIN, Map.of(), Map.of(), format, true);
        }

        /** A tier of jtick's column files. */
        public Tier(final String name, final int maxAgeDays, final ColumnEncoding encoding, final Map<String, ColumnEncoding> types,
                    final Map<String, ColumnEncoding> columns) {
            this(name, maxAgeDays, encoding, types, columns, null);
        }

        /**
         * A tier from its written encoding: {@code <format>/<compression>} when a table format on the
         * class path has that name ({@code parquet/zstd}), else a column encoding ({@code auto/zstd:3}).
         */
        public static Tier parse(final String name, final int maxAgeDays, final String encoding, final Map<String, ColumnEncoding> types,
                                 final Map<String, ColumnEncoding> columns) {
            final String e = encoding == null ? "" : encoding.trim().toLowerCase(Locale.ROOT);
            if (TableFormats.byName(formatName(e)) != null) {
                return new Tier(name, maxAgeDays, ColumnEncoding.PLAIN, types, columns, e);
            }
            return new Tier(name, maxAgeDays, ColumnEncoding.parse(e), types, columns, null);
        }

        /** The stored format this tier asks for: {@code jtick}, {@code parquet/zstd}, or in the object store {@code s3:parquet/zstd}. */
        public String storedFormat() {
            if (objectStore) {
                return ColdStore.FORMAT_PREFIX + uploadFormat();
            }
            return format == null ? TableFormats.JTICK : format;
        }

        /** The format an object-store tier uploads: {@code parquet/zstd} unless the tier names another compression. */
        public String uploadFormat() {
            return format == null ? "parquet/zstd" : format.indexOf('/') < 0 ? format + "/zstd" : format;
        }

        /** The encoding this tier gives a column. */
        public ColumnEncoding encoding(final String table, final ColumnDef column) {
            ColumnEncoding e = columns.get(table + "." + column.name());
            if (e == null) {
                e = columns.get(column.name());
            }
            if (e == null && "sym".equals(column.name())) {
                e = ColumnEncoding.PLAIN;
            }
            if (e == null) {
                e = types.get(column.type().typeName());
            }
            return e == null ? encoding : e;
        }

        /** This tier as a writer policy. */
        public EncodingPolicy policy() {
            return this::encoding;
        }
    }

    public TierPolicy {
        if (tiers == null || tiers.isEmpty()) {
            throw new IllegalArgumentException("at least one tier is required");
        }
        tiers = List.copyOf(tiers);
        int last = -1;
        for (int i = 0; i < tiers.size(); i++) {
            final Tier t = tiers.get(i);
            final boolean isLast = i == tiers.size() - 1;
            if (t.maxAgeDays() < 0 && !isLast) {
                throw new IllegalArgumentException("only the last tier may have no age limit [tier=" + t.name() + "]");
            }
            if (t.maxAgeDays() >= 0 && t.maxAgeDays() <= last) {
                throw new IllegalArgumentException("tier ages must increase [tier=" + t.name() + ", maxAgeDays=" + t.maxAgeDays() + "]");
            }
            last = t.maxAgeDays();
        }
    }

    /** hot ≤ 5 days plain; warm ≤ 30 days auto/lz4; cold auto/zstd:3. */
    public static TierPolicy defaults() {
        return new TierPolicy(List.of(
            new Tier("hot", 5, ColumnEncoding.PLAIN, Map.of(), Map.of()),
            new Tier("warm", 30, ColumnEncoding.parse("auto/lz4"), Map.of(), Map.of()),
            new Tier("cold", -1, ColumnEncoding.parse("auto/zstd:3"), Map.of(), Map.of())));
    }

    /** {@link #defaults()} with its last tier, {@code cold}, in the object store as Parquet (zstd). */
    public static TierPolicy defaultsWithObjectStore() {
        final List<Tier> t = new ArrayList<>(defaults().tiers());
        t.set(t.size() - 1, Tier.objectStore("cold", -1, null));
        return new TierPolicy(t);
    }

    /** True when a tier lives in the object store. */
    public boolean usesObjectStore() {
        return tiers.stream().anyMatch(Tier::objectStore);
    }

    /** The first tier: end-of-day write-down uses it. */
    public Tier hot() {
        return tiers.get(0);
    }

    /** The format part of {@code parquet/zstd}. */
    public static String formatName(final String format) {
        final int slash = format.indexOf('/');
        return slash < 0 ? format : format.substring(0, slash);
    }

    /** The compression part of {@code parquet/zstd}, empty when none is named. */
    public static String formatCompression(final String format) {
        final int slash = format.indexOf('/');
        return slash < 0 ? "" : format.substring(slash + 1);
    }

    /** The tier by name, or null. */
    public Tier tier(final String name) {
        for (final Tier t : tiers) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** The tier of a partition dated {@code date} when today is {@code today}; null when it is past the last tier's limit. */
    public Tier tierFor(final LocalDate date, final LocalDate today) {
        final long age = ChronoUnit.DAYS.between(date, today);
        for (final Tier t : tiers) {
            if (t.maxAgeDays() < 0 || age <= t.maxAgeDays()) {
                return t;
            }
        }
        return tiers.get(tiers.size() - 1);
    }

    /** Builds a policy from plain maps (configuration): name, maxAgeDays, encoding, types, columns. */
    public static TierPolicy fromConfig(final List<Map<String, Object>> config) {
        final List<Tier> out = new ArrayList<>();
        for (final Map<String, Object> m : config) {
            final String name = (String) m.get("name");
            final int maxAge = ((Number) m.getOrDefault("maxAgeDays", -1)).intValue();
            if (Boolean.TRUE.equals(m.get("objectStore"))) {
                final Object enc = m.get("encoding");
                out.add(Tier.objectStore(name, maxAge, enc == null || "null".equals(String.valueOf(enc)) ? null : String.valueOf(enc)));
                continue;
            }
            out.add(Tier.parse(name, maxAge, String.valueOf(m.get("encoding")), encodings(m.get("types")), encodings(m.get("columns"))));
        }
        return new TierPolicy(out);
    }

    private static Map<String, ColumnEncoding> encodings(final Object o) {
        final Map<String, ColumnEncoding> out = new LinkedHashMap<>();
        if (o instanceof Map<?, ?> m) {
            for (final Map.Entry<?, ?> e : m.entrySet()) {
                out.put(String.valueOf(e.getKey()), ColumnEncoding.parse(String.valueOf(e.getValue())));
            }
        }
        return out;
    }
}
