package io.jtick.core.kdb;

/**
 * Layout constants of the kdb+ IPC protocol (KX "Serialization examples" and "IPC" reference).
 *
 * <pre>
 * handshake   client: "user:password" (may be empty), one capability byte, NUL
 *             server: one byte, the capability both sides use; or it closes the connection
 * message     8-byte header, then one serialized kdb+ object
 *   0  uint8  byte order        1 little-endian, 0 big-endian (every integer of the message, the length included)
 *   1  uint8  message type      0 async, 1 sync, 2 response
 *   2  uint8  compressed        1: the object is compressed (below)
 *   3  uint8  reserved
 *   4  int32  length            bytes of the whole message, header included
 * compressed  8  int32 length of the uncompressed message (header included), then the compressed bytes
 * object      int8 type; atoms (type &lt; 0) hold their value; vectors (1..19) hold uint8 attribute,
 *             int32 count, values; a symbol is its bytes and a NUL; a general list (0) holds its items;
 *             a dictionary (99) is its keys then values; a table (98) is an attribute byte, then the
 *             dictionary of column names to columns; an error (-128) is its text and a NUL
 * </pre>
 */
public final class KdbDescriptor {
    public static final int HEADER_LENGTH = 8;
    public static final int BYTE_ORDER_OFFSET = 0;
    public static final int MESSAGE_TYPE_OFFSET = 1;
    public static final int COMPRESSED_OFFSET = 2;
    public static final int LENGTH_OFFSET = 4;
    /** Where a compressed message keeps its uncompressed length. */
    public static final int UNCOMPRESSED_LENGTH_OFFSET = 8;

    public static final int ASYNC = 0;
    public static final int SYNC = 1;
    public static final int RESPONSE = 2;

    /** The capability jtick answers at most: 3 (kdb+ 3.0: guid, timestamps, timespans, compression, messages under 2 GB). */
    public static final int CAPABILITY = 3;
    /** Longest handshake accepted before its NUL. */
    public static final int MAX_HANDSHAKE_LENGTH = 1024;

    /** kdb+ counts timestamps from 2000-01-01: epoch nanoseconds minus this. */
    public static final long NANOS_1970_2000 = 946_684_800_000_000_000L;
    /** kdb+ counts dates from 2000-01-01: epoch days minus this. */
    public static final int DAYS_1970_2000 = 10_957;
    /** Null long, timestamp and timespan ({@code 0Nj}, {@code 0Np}, {@code 0Nn}). */
    public static final long NULL_LONG = Long.MIN_VALUE;

    private KdbDescriptor() {
    }
}
