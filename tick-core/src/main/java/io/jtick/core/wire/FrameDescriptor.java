package io.jtick.core.wire;

/**
 * Layout constants of every jtick frame. All integers are little-endian.
 *
 * <pre>
 * common header (8 bytes)
 *   0  int32  frameLength   bytes of the whole frame, this field included
 *   4  uint8  version       {@link #VERSION}
 *   5  uint8  type          {@link MessageType}
 *   6  uint16 flags         per type
 *
 * UPDATE body
 *   8  int64  sequence      last journal sequence carried (the TP sets it); from a feed: 0, or the
 *                           feed's own update number when its HELLO said it numbers them
 *  16  int32  updateCount   journalled updates merged into this frame (1 unless timer-batched)
 *  20  int32  rowCount
 *  24  int64  tpTime        TP publish time, epoch ns (0 from a feed)
 *  32  int64  feedTime      feed send time, epoch ns (0 if unknown)
 *  40  uint16 columnCount
 *  42  uint16 tableLength   (1..64, ASCII)
 *  44  int32  dictOffset    offset of the sym dictionary from frame start
 *  48  table name, padded to 8
 *  ..  column blocks, in schema order, each 8-aligned:
 *        uint8 typeCode, 3 bytes zero, int32 byteLength (= rowCount * width), data, pad to 8
 *  dictOffset: int32 symCount, then symCount x (uint8 length, ASCII bytes)
 * </pre>
 */
public final class FrameDescriptor {
    /** Layout version of every frame (byte 4); unchanged since the first release. */
    public static final int VERSION = 1;

    /**
     * Highest protocol version a HELLO may announce. 1: the base protocol. 2 adds numbered feeds: a
     * HELLO flags byte ({@link #HELLO_FLAG_NUMBERED}), the feed's own update number in the UPDATE
     * sequence field, and FEED_ACK from the tickerplant. A peer that says 1 gets the base protocol.
     */
    public static final int PROTOCOL_VERSION = 2;

    /** HELLO flag (protocol 2): this feed numbers its updates 1, 2, 3... and wants FEED_ACK. */
    public static final int HELLO_FLAG_NUMBERED = 1;

    public static final int LENGTH_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int TYPE_OFFSET = 5;
    public static final int FLAGS_OFFSET = 6;
    public static final int HEADER_LENGTH = 8;

    public static final int SEQUENCE_OFFSET = 8;
    public static final int UPDATE_COUNT_OFFSET = 16;
    public static final int ROW_COUNT_OFFSET = 20;
    public static final int TP_TIME_OFFSET = 24;
    public static final int FEED_TIME_OFFSET = 32;
    public static final int COLUMN_COUNT_OFFSET = 40;
    public static final int TABLE_LENGTH_OFFSET = 42;
    public static final int DICT_OFFSET_OFFSET = 44;
    public static final int TABLE_NAME_OFFSET = 48;
    public static final int COLUMN_HEADER_LENGTH = 8;
    public static final int MAX_SYM_LENGTH = 255;

    /** UPDATE flag: the time column is unset; the tickerplant stamps every row with one time. */
    public static final int FLAG_STAMP_TIME = 1;

    /** Default largest frame accepted (configurable per service). */
    public static final int DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024;

    private FrameDescriptor() {
    }

    public static int align8(final int n) {
        return (n + 7) & ~7;
    }
}
