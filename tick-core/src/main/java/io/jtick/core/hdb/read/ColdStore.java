package io.jtick.core.hdb.read;

import io.jtick.core.hdb.format.StoredTable;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * The cold tier: partitions held in an object store rather than under the HDB's root (tick-objectstore
 * implements it over S3-compatible storage). A partition is published by a manifest written after
 * its data is uploaded and verified, so {@link #list()} never shows a half-uploaded one; the HDB lists
 * them beside its local tables (a local copy wins: until the tiering job deletes it, it is the
 * authoritative one), and the tiering job publishes into it and deletes from it.
 */
public interface ColdStore extends AutoCloseable {
    /** What a cold table's {@link StoredTable#format()} starts with: {@code s3:parquet/zstd}. */
    String FORMAT_PREFIX = "s3:";

    /** A published partition: one table of one date, and a version that changes when it is published again. */
    record ColdPartition(LocalDate date, String table, String version) {
    }

    /** The store, for messages: {@code s3://bucket/prefix at http://host:port}. */
    String describe();

    /** Every published partition (one listing of the manifests). */
    List<ColdPartition> list() throws IOException;

    /**
     * Opens a published partition for reading (its footer only; the rest is fetched as reads need it).
     * {@code directory} is where the table would sit under the root, which {@link StoredTable#directory()} reports.
     */
    StoredTable open(ColdPartition partition, Path directory) throws IOException;

    /**
     * Uploads a table in {@code format} ({@code parquet/zstd}), verifies the upload and publishes it by
     * writing its manifest last; when a manifest already names a verified upload of this partition, only
     * checks it (a re-run after a crash finishes the move). The local copy is not touched.
     */
    ColdPartition publish(StoredTable table, String format) throws IOException;

    /** Deletes a published partition: its manifest first (it is no longer listed), then its data. */
    void delete(LocalDate date, String table) throws IOException;

    @Override
    void close();
}
