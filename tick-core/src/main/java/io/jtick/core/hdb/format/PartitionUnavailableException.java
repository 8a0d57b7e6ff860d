package io.jtick.core.hdb.format;

import java.time.LocalDate;

/**
 * A stored table whose bytes cannot be fetched right now: its store (the object store of the cold
 * tier) is unreachable, too slow, refuses the credentials or lacks an object. Unlike
 * {@link CorruptPartitionException} nothing is wrong with the partition itself and the next read
 * may succeed; the read that met it fails whole (never a partial answer). Unchecked, so that it
 * crosses {@link io.jtick.core.table.TableSegment#read} unchanged. The message names the partition,
 * the store and the reason ({@code unreachable}, {@code timeout}, {@code denied}, {@code missing}, {@code error}).
 */
public final class PartitionUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient LocalDate date;
    private final String table;
    private final String store;
    private final String reason;

    public PartitionUnavailableException(final LocalDate date, final String table, final String store, final String reason,
                                         final String detail, final Throwable cause) {
        super("partition unavailable: its store " + describe(reason) + " [date=" + date + ", table=" + table + ", store=" + store
            + ", reason=" + reason + "]: " + detail, cause);
        this.date = date;
        this.table = table;
        this.store = store;
        this.reason = reason;
    }

    private static String describe(final String reason) {
        return switch (reason) {
            case "unreachable" -> "cannot be reached";
            case "timeout" -> "did not answer in time";
            case "denied" -> "refused the credentials";
            case "missing" -> "lacks an object of it";
            default -> "failed a request";
        };
    }

    public LocalDate date() {
        return date;
    }

    public String table() {
        return table;
    }

    /** The store, as {@code s3://bucket/prefix at endpoint}. */
    public String store() {
        return store;
    }

    /** {@code unreachable}, {@code timeout}, {@code denied}, {@code missing} or {@code error}. */
    public String reason() {
        return reason;
    }
}
