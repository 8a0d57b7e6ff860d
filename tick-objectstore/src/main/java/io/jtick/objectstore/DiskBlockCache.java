package io.jtick.objectstore;

import io.jtick.core.metrics.TickMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The disk tier of the cold tier's block cache, under the memory one ({@link RangeCache}): blocks
 * kept as files in one directory, so a restarted HDB reads the blocks it fetched before from local
 * disk instead of the bucket. Counts {@code tick.hdb.cold.cache.disk.hits}, {@code .disk.misses},
 * {@code .disk.evictions}, {@code .disk.errors} and exposes {@code tick.hdb.cold.cache.disk.bytes}.
 *
 * <p>A block is one file, {@code <hash>-<block>.blk}, the hash being the first 128 bits of the SHA-256
 * of the object's key and ETag (so a republished object never meets its old blocks). A file is
 * written under a temporary name and renamed into place, so no reader sees half a block; it is not
 * forced to disk, since its header carries what rejects a torn or wrong one: a magic number, the
 * block's number, the object's key and ETag, the data's length and a CRC32C of all that and the data.
 * A file that fails any check is logged, counted in {@code .disk.errors}, deleted, and read as a miss
 * (the block is fetched again): a damaged cache costs a GET, never a wrong answer. A file that
 * cannot be written (disk full, no permission) is logged and counted the same way, and the query
 * goes on from memory.
 *
 * <p>State: an index of the files (name → size and last-use stamp) in memory, its total bytes, and
 * a clock that ticks on each insertion (as the memory tier's). At start the directory is scanned:
 * temporary files a crash left are deleted, the cache's files are indexed oldest-modified first, and
 * the oldest are evicted if they exceed the budget (a read stamps its file's modification time, so
 * that order is the least recently used across restarts). Only names of the cache's own form are ever
 * indexed, evicted or deleted, so a directory shared with other files loses none of them. One
 * process per directory: two would neither see each other's budget nor spare each other's files.
 */
final class DiskBlockCache {
    private static final Logger LOG = LoggerFactory.getLogger(DiskBlockCache.class);

    private static final int MAGIC = 0x4A54424B;   // "JTBK"
    /** magic, crc, block, data length, key length: then the key's UTF-8 bytes and the data. */
    private static final int FIXED_HEADER = 4 + 4 + 8 + 4 + 2;
    private static final String SUFFIX = ".blk";
    private static final String TMP = ".tmp-";
    private static final Pattern NAME = Pattern.compile("[0-9a-f]{32}-[0-9]+\\.blk");

    /** A file of the cache: its size on disk and when it was last read or written. */
    private static final class Entry {
        final long bytes;
        volatile long used;

        Entry(final long bytes, final long used) {
            this.bytes = bytes;
            this.used = used;
        }
    }

    private final Path dir;
    private final long capacity;
    private final ConcurrentHashMap<String, Entry> files = new ConcurrentHashMap<>(1024);
    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong tmpIds = new AtomicLong();
    private final AtomicLong lastWriteWarning = new AtomicLong(System.nanoTime() - 120_000_000_000L);
    private final AtomicLong hits;
    private final AtomicLong misses;
    private final AtomicLong evictions;
    private final AtomicLong errors;

    /** Opens (creating it when missing) the cache in {@code dir}, indexing the files found there. */
    DiskBlockCache(final Path dir, final long capacity, final TickMetrics metrics) throws IOException {
        this.dir = dir;
        this.capacity = capacity;
        this.hits = metrics.counter("tick.hdb.cold.cache.disk.hits");
        this.misses = metrics.counter("tick.hdb.cold.cache.disk.misses");
        this.evictions = metrics.counter("tick.hdb.cold.cache.disk.evictions");
        this.errors = metrics.counter("tick.hdb.cold.cache.disk.errors");
        metrics.gauge("tick.hdb.cold.cache.disk.bytes", this::bytes);
        Files.createDirectories(dir);
        scan();
    }

    private void scan() throws IOException {
        record Found(String name, long bytes, long modified) {
        }
        final List<Found> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (final Path p : ds) {
                final String name = p.getFileName().toString();
                final int tmp = name.indexOf(TMP);
                if (tmp > 0 && NAME.matcher(name.substring(0, tmp)).matches()) {
                    Files.deleteIfExists(p);   // a write a crash interrupted: never renamed into place, never read
                } else if (NAME.matcher(name).matches()) {
                    final BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                    if (a.isRegularFile()) {
                        found.add(new Found(name, a.size(), a.lastModifiedTime().toMillis()));
                    }
                }
            }
        }
        found.sort((a, b) -> Long.compare(a.modified, b.modified));
        for (final Found f : found) {
            files.put(f.name, new Entry(f.bytes, clock.incrementAndGet()));
            bytes.addAndGet(f.bytes);
        }
        if (bytes.get() > capacity) {
            evict(capacity);
        }
        LOG.info("cold tier disk cache opened [dir={}, files={}, bytes={}, budget={}]", dir.toAbsolutePath(), files.size(), bytes.get(),
            capacity);
    }

    /** The block, or null (counted as a hit or a miss; a damaged file also as an error, and deleted). */
    byte[] get(final RangeCache.BlockKey key) {
        final String name = fileName(key);
        final Entry e = files.get(name);
        if (e == null) {
            misses.incrementAndGet();
            return null;
        }
        final byte[] file;
        try {
            file = Files.readAllBytes(dir.resolve(name));
        } catch (final NoSuchFileException gone) {
            // evicted by another thread meanwhile, or removed by hand
            forget(name, e);
            misses.incrementAndGet();
            return null;
        } catch (final IOException ex) {
            reject(name, e, "unreadable: " + ex.getMessage(), key);
            return null;
        }
        final String bad = check(file, key);
        if (bad != null) {
            reject(name, e, bad, key);
            return null;
        }
        e.used = clock.get();
        hits.incrementAndGet();
        touch(name);
        return Arrays.copyOfRange(file, file.length - dataLength(file), file.length);
    }

    /** True when a file of the block is indexed (not counted, not read). */
    boolean contains(final RangeCache.BlockKey key) {
        return files.containsKey(fileName(key));
    }

    /** Keeps a block on disk (a failure to write is logged and counted, never thrown), evicting beyond the budget. */
    void put(final RangeCache.BlockKey key, final byte[] block) {
        final byte[] keyBytes = key.object().getBytes(StandardCharsets.UTF_8);
        final int size = FIXED_HEADER + keyBytes.length + block.length;
        if (size > capacity || keyBytes.length > 0xFFFF) {
            return;
        }
        final String name = fileName(key);
        final Path file = dir.resolve(name);
        final Path tmp = dir.resolve(name + TMP + tmpIds.incrementAndGet());
        final ByteBuffer header = ByteBuffer.allocate(FIXED_HEADER + keyBytes.length);
        header.putInt(MAGIC).putInt(0).putLong(key.block()).putInt(block.length).putShort((short) keyBytes.length).put(keyBytes);
        final CRC32C crc = new CRC32C();
        crc.update(header.array(), 8, header.capacity() - 8);
        crc.update(block, 0, block.length);
        header.putInt(4, (int) crc.getValue()).flip();
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                final ByteBuffer[] parts = {header, ByteBuffer.wrap(block)};
                while (parts[0].hasRemaining() || parts[1].hasRemaining()) {
                    ch.write(parts);
                }
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (final IOException | RuntimeException ex) {
            errors.incrementAndGet();
            // a full disk fails every write: one warning a minute, the rest at debug (the counter has them all)
            final long now = System.nanoTime();
            final long last = lastWriteWarning.get();
            final boolean warn = now - last > 60_000_000_000L && lastWriteWarning.compareAndSet(last, now);
            final String msg = "cold tier disk cache: cannot write a block, kept in memory only [file={}, object={}, block={},"
                + " failures={}]: {}";
            if (warn) {
                LOG.warn(msg, file, key.object(), key.block(), errors.get(), ex.toString());
            } else {
                LOG.debug(msg, file, key.object(), key.block(), errors.get(), ex.toString());
            }
            try {
                Files.deleteIfExists(tmp);
            } catch (final IOException ignored) {
                // the next start deletes it
            }
            return;
        }
        final Entry old = files.put(name, new Entry(size, clock.incrementAndGet()));
        if (bytes.addAndGet(size - (old == null ? 0L : old.bytes)) > capacity) {
            evict(capacity - capacity / 8);
        }
    }

    /** Deletes the least recently used files down to {@code target} bytes. */
    private synchronized void evict(final long target) {
        if (bytes.get() <= capacity) {
            return;   // another thread evicted meanwhile
        }
        final List<Map.Entry<String, Entry>> all = new ArrayList<>(files.entrySet());
        all.sort((a, b) -> Long.compare(a.getValue().used, b.getValue().used));
        for (int i = 0; i < all.size() && bytes.get() > target; i++) {
            final Map.Entry<String, Entry> e = all.get(i);
            if (files.remove(e.getKey(), e.getValue())) {
                bytes.addAndGet(-e.getValue().bytes);
                evictions.incrementAndGet();
                delete(e.getKey());
            }
        }
    }

    /** Why a file is not the block it is named for, or null when it is. */
    private static String check(final byte[] file, final RangeCache.BlockKey key) {
        if (file.length < FIXED_HEADER) {
            return "shorter than its header [length=" + file.length + "]";
        }
        final ByteBuffer b = ByteBuffer.wrap(file);
        if (b.getInt(0) != MAGIC) {
            return "not a block file (bad magic)";
        }
        final int keyLength = b.getShort(20) & 0xFFFF;
        final long want = (long) FIXED_HEADER + keyLength + b.getInt(16);
        if (b.getInt(16) < 0 || file.length != want) {
            return "length " + file.length + " where its header says " + want;
        }
        final CRC32C crc = new CRC32C();
        crc.update(file, 8, file.length - 8);
        if ((int) crc.getValue() != b.getInt(4)) {
            return "checksum mismatch";
        }
        final String object = new String(file, FIXED_HEADER, keyLength, StandardCharsets.UTF_8);
        if (b.getLong(8) != key.block() || !object.equals(key.object())) {
            return "holds another block [object=" + object + ", block=" + b.getLong(8) + "]";
        }
        return null;
    }

    private static int dataLength(final byte[] file) {
        return ByteBuffer.wrap(file).getInt(16);
    }

    private void reject(final String name, final Entry e, final String why, final RangeCache.BlockKey key) {
        errors.incrementAndGet();
        misses.incrementAndGet();
        LOG.warn("cold tier disk cache: damaged block file deleted, the block is fetched again [file={}, object={}, block={}]: {}",
            dir.resolve(name), key.object(), key.block(), why);
        if (forget(name, e)) {
            delete(name);   // not when another thread has just written the block again
        }
    }

    private boolean forget(final String name, final Entry e) {
        if (files.remove(name, e)) {
            bytes.addAndGet(-e.bytes);
            return true;
        }
        return false;
    }

    /** Stamps a file read now, so that the start-up scan, which orders by modification time, evicts the least recently used. */
    private void touch(final String name) {
        try {
            Files.setLastModifiedTime(dir.resolve(name), FileTime.fromMillis(System.currentTimeMillis()));
        } catch (final IOException ignored) {
            // evicted meanwhile: nothing to stamp; a stamp is a hint for the next start only
        }
    }

    private void delete(final String name) {
        try {
            Files.deleteIfExists(dir.resolve(name));
        } catch (final IOException ex) {
            errors.incrementAndGet();
            LOG.warn("cold tier disk cache: cannot delete a block file [file={}]: {}", dir.resolve(name), ex.toString());
        }
    }

    /** {@code <first 128 bits of sha256(object key @ ETag), hex>-<block>.blk}. */
    static String fileName(final RangeCache.BlockKey key) {
        try {
            final byte[] h = MessageDigest.getInstance("SHA-256").digest(key.object().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 16) + "-" + key.block() + SUFFIX;
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    Path dir() {
        return dir;
    }

    long bytes() {
        return bytes.get();
    }

    int fileCount() {
        return files.size();
    }
}
