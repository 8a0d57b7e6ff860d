package io.jtick.core.table;

import io.jtick.core.schema.TableSchema;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link QuerySource} over segments held in memory, e.g. {@link MemorySegment}s standing for
 * HDB partitions. Segments are returned oldest date first. Not thread-safe to build; safe to query
 * once built.
 */
public final class MemorySource implements QuerySource {
    private final Map<String, TableSchema> schemas = new LinkedHashMap<>();
    private final Map<String, List<TableSegment>> segments = new LinkedHashMap<>();

    /** Adds a segment; the table's schema becomes the one of the newest date added. */
    public MemorySource add(final TableSegment segment) {
        final String table = segment.schema().name();
        final List<TableSegment> list = segments.computeIfAbsent(table, t -> new ArrayList<>());
        list.add(segment);
        list.sort(Comparator.comparingInt(TableSegment::epochDay));
        schemas.put(table, list.get(list.size() - 1).schema());
        return this;
    }

    /** Declares a table that may have no segments. */
    public MemorySource table(final TableSchema schema) {
        schemas.putIfAbsent(schema.name(), schema);
        return this;
    }

    @Override
    public TableSchema schema(final String table) {
        return schemas.get(table);
    }

    @Override
    public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
        final List<TableSegment> out = new ArrayList<>();
        for (final TableSegment s : segments.getOrDefault(table, List.of())) {
            if (s.epochDay() >= fromDay && s.epochDay() <= toDay) {
                out.add(s);
            }
        }
        return out;
    }
}
