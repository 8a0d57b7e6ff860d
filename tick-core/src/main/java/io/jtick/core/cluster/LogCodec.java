package io.jtick.core.cluster;

import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.ReplicatedState;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * What the cluster log and its snapshots hold, little-endian:
 * <ul>
 *   <li>UPDATE: {@code uint8 1, int32 originMember, int64 ingressNanos, uint8 nameLength, name}, then the
 *       update frame exactly as the feed sent it (a numbered feed's number in its sequence field);
 *       {@code nameLength} 0 for a feed that does not number its updates;</li>
 *   <li>END_OF_DAY: {@code uint8 2};</li>
 *   <li>MODE: {@code uint8 3, uint8 mode (PublishMode ordinal), int64 timerNanos};</li>
 *   <li>a snapshot: {@code int32 version (1), int64 epochDay, int64 sequence, uint8 mode, int64 timerNanos,
 *       int32 feeds}, then per feed {@code uint8 nameLength, name, int64 journalled, int32 ranges}, then
 *       per range {@code int64 lo, int64 hi}.</li>
 * </ul>
 * {@code originMember} and {@code ingressNanos} only let the leader that offered an update time its
 * commit; no node's state depends on them.
 */
final class LogCodec {
    static final byte UPDATE = 1;
    static final byte END_OF_DAY = 2;
    static final byte MODE = 3;
    static final int UPDATE_NAME_LENGTH = 13;
    static final int UPDATE_HEADER = 14;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int SNAPSHOT_VERSION = 1;
    private static final PublishMode[] MODES = PublishMode.values();

    private LogCodec() {
    }

    /** Writes an UPDATE header at 0 of {@code to}; returns its length (the frame follows it). */
    static int updateHeader(final MutableDirectBuffer to, final int origin, final long ingressNanos, final byte[] feedName) {
        final int n = feedName == null ? 0 : feedName.length;
        to.putByte(0, UPDATE);
        to.putInt(1, origin, LE);
        to.putLong(5, ingressNanos, LE);
        to.putByte(UPDATE_NAME_LENGTH, (byte) n);
        if (n > 0) {
            to.putBytes(UPDATE_HEADER, feedName);
        }
        return UPDATE_HEADER + n;
    }

    static int origin(final DirectBuffer b, final int offset) {
        return b.getInt(offset + 1, LE);
    }

    static long ingressNanos(final DirectBuffer b, final int offset) {
        return b.getLong(offset + 5, LE);
    }

    /** The length of the UPDATE's feed name in bytes (ASCII), 0 when its feed does not number its updates. */
    static int feedNameLength(final DirectBuffer b, final int offset) {
        return b.getByte(offset + UPDATE_NAME_LENGTH) & 0xFF;
    }

    /** The UPDATE's feed name, or null when its feed does not number its updates. */
    static String feedName(final DirectBuffer b, final int offset) {
        final int n = b.getByte(offset + UPDATE_NAME_LENGTH) & 0xFF;
        return n == 0 ? null : b.getStringWithoutLengthAscii(offset + UPDATE_HEADER, n);
    }

    /** Where the frame of the UPDATE at {@code offset} starts. */
    static int frameOffset(final DirectBuffer b, final int offset) {
        return offset + UPDATE_HEADER + (b.getByte(offset + UPDATE_NAME_LENGTH) & 0xFF);
    }

    static int endOfDay(final MutableDirectBuffer to) {
        to.putByte(0, END_OF_DAY);
        return 1;
    }

    static int mode(final MutableDirectBuffer to, final PublishMode mode, final long timerNanos) {
        to.putByte(0, MODE);
        to.putByte(1, (byte) mode.ordinal());
        to.putLong(2, timerNanos, LE);
        return 10;
    }

    static PublishMode modeOf(final DirectBuffer b, final int offset) {
        return MODES[b.getByte(offset + 1)];
    }

    static long timerNanosOf(final DirectBuffer b, final int offset) {
        return b.getLong(offset + 2, LE);
    }

    /** Encodes a snapshot into {@code to} from 0; returns its length. */
    static int snapshot(final ExpandableArrayBuffer to, final ReplicatedState s) {
        int p = 0;
        to.putInt(p, SNAPSHOT_VERSION, LE);
        to.putLong(p += 4, s.date().toEpochDay(), LE);
        to.putLong(p += 8, s.sequence(), LE);
        to.putByte(p += 8, (byte) s.mode().ordinal());
        to.putLong(p += 1, s.timerNanos(), LE);
        to.putInt(p += 8, s.feeds().size(), LE);
        p += 4;
        for (final ReplicatedState.FeedNumbers f : s.feeds()) {
            final byte[] name = f.name().getBytes(StandardCharsets.US_ASCII);
            to.putByte(p, (byte) name.length);
            to.putBytes(p + 1, name);
            p += 1 + name.length;
            to.putLong(p, f.journalled(), LE);
            to.putInt(p + 8, f.lo().length, LE);
            p += 12;
            for (int k = 0; k < f.lo().length; k++) {
                to.putLong(p, f.lo()[k], LE);
                to.putLong(p + 8, f.hi()[k], LE);
                p += 16;
            }
        }
        return p;
    }

    /** Decodes a snapshot written by {@link #snapshot}; throws {@link IllegalStateException} for another version. */
    static ReplicatedState snapshotOf(final DirectBuffer b, final int offset) {
        int p = offset;
        final int version = b.getInt(p, LE);
        if (version != SNAPSHOT_VERSION) {
            throw new IllegalStateException("cluster snapshot of an unknown version [version=" + version + ", known=" + SNAPSHOT_VERSION
                + "]");
        }
        final LocalDate date = LocalDate.ofEpochDay(b.getLong(p += 4, LE));
        final long sequence = b.getLong(p += 8, LE);
        final PublishMode mode = MODES[b.getByte(p += 8)];
        final long timer = b.getLong(p += 1, LE);
        final int feeds = b.getInt(p += 8, LE);
        p += 4;
        final List<ReplicatedState.FeedNumbers> out = new ArrayList<>(feeds);
        for (int f = 0; f < feeds; f++) {
            final int n = b.getByte(p) & 0xFF;
            final String name = b.getStringWithoutLengthAscii(p + 1, n);
            p += 1 + n;
            final long journalled = b.getLong(p, LE);
            final int ranges = b.getInt(p + 8, LE);
            p += 12;
            final long[] lo = new long[ranges];
            final long[] hi = new long[ranges];
            for (int k = 0; k < ranges; k++) {
                lo[k] = b.getLong(p, LE);
                hi[k] = b.getLong(p + 8, LE);
                p += 16;
            }
            out.add(new ReplicatedState.FeedNumbers(name, journalled, lo, hi));
        }
        return new ReplicatedState(date, sequence, mode, timer, out);
    }
}
