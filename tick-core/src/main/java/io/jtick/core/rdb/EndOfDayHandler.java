package io.jtick.core.rdb;

import io.jtick.core.table.TableSegment;

import java.util.List;

/**
 * What the RDB does with today's tables at end of day, before it clears them ({@code .u.end} →
 * {@code .Q.hdpf}). Runs on the subscription thread; the tables are read-only segments dated the
 * day that ends. Throwing means "not saved": the RDB keeps the data, counts the failure and
 * carries on.
 */
@FunctionalInterface
public interface EndOfDayHandler {
    /** Keeps nothing: the data of the day is dropped at end of day. */
    EndOfDayHandler NONE = (epochDay, tables) -> {
    };

    void onEndOfDay(int epochDay, List<TableSegment> tables) throws Exception;
}
