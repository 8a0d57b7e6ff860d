package io.jtick.objectstore;

import io.jtick.core.query.model.Json;

import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What publishes one cold partition: the manifest object {@code <prefix>_manifests/<date>/<table>.json},
 * written after the data object was uploaded and verified, deleted before it. The HDB lists the
 * manifests, never the data: a data object without its manifest (a crash mid-move) is invisible.
 *
 * @param date      the partition's date
 * @param table     the table
 * @param key       the data object's key ({@code <prefix><table>/date=<date>/<table>.parquet}, Hive-style)
 * @param bytes     the data object's size
 * @param md5       hex MD5 of the data object (sent as {@code Content-MD5}, compared with the ETag)
 * @param etag      the data object's ETag as the store answered it
 * @param format    {@code parquet/zstd}
 * @param rows      rows of the table
 * @param published when the manifest was written (ISO-8601)
 */
record Manifest(LocalDate date, String table, String key, long bytes, String md5, String etag, String format, long rows,
                String published) {
    static final int VERSION = 1;

    String toJson() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("manifestVersion", (long) VERSION);
        m.put("date", date.toString());
        m.put("table", table);
        m.put("key", key);
        m.put("bytes", bytes);
        m.put("md5", md5);
        m.put("etag", etag);
        m.put("format", format);
        m.put("rows", rows);
        m.put("published", published);
        return Json.write(m);
    }

    /** Parses a manifest; throws {@link IllegalArgumentException} naming what is missing. */
    static Manifest parse(final String json) {
        final Object o;
        try {
            o = Json.parse(json);
        } catch (final RuntimeException e) {
            throw new IllegalArgumentException("not a JSON manifest: " + e.getMessage(), e);
        }
        if (!(o instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException("a manifest is a JSON object");
        }
        return new Manifest(LocalDate.parse(text(m, "date")), text(m, "table"), text(m, "key"), number(m, "bytes"), text(m, "md5"),
            text(m, "etag"), text(m, "format"), number(m, "rows"), text(m, "published"));
    }

    private static String text(final Map<?, ?> m, final String k) {
        if (!(m.get(k) instanceof String s)) {
            throw new IllegalArgumentException("manifest field missing [field=" + k + "]");
        }
        return s;
    }

    private static long number(final Map<?, ?> m, final String k) {
        if (!(m.get(k) instanceof Long n)) {
            throw new IllegalArgumentException("manifest field missing [field=" + k + "]");
        }
        return n;
    }
}
