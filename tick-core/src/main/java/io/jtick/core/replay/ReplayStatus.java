package io.jtick.core.replay;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

/**
 * One replay as {@code GET /api/replays} lists it.
 *
 * @param id            replay id ({@code DELETE /api/replays/{id}})
 * @param consumer      the name the consumer gave in HELLO, or its address
 * @param remote        the consumer's address
 * @param tables        tables merged by time
 * @param from          first date asked for
 * @param to            last date asked for
 * @param syms          syms asked for (0 = all)
 * @param pace          max or recorded
 * @param speed         recorded pace factor (0 at max pace)
 * @param state         running, complete, cancelled, failed or disconnected
 * @param message       why it did not complete, else empty
 * @param rowsSent      rows written to the consumer
 * @param totalRows     rows the replay sends in all
 * @param progress      rowsSent / totalRows, percent
 * @param rowsPerSecond rows sent per second since it started (until it ended)
 * @param bytesSent     bytes of UPDATE frames written
 * @param framesSent    UPDATE frames written
 * @param elapsedMillis since it started (until it ended)
 * @param stream        the shared stream it reads from (consumers of one range share one)
 * @param shared        still reading the stream's frames (false: it fell behind and reads on its own)
 * @param heldBytes     heap and direct memory its stream holds (shared frames and the reader's buffers, counted once per
 *                      stream) or, reading on its own, its own reader's buffers; besides its outbound buffer
 * @param scratchBytes  decoded compressed columns mapped for the dates being read (page cache, shared by the stream)
 * @param startedAt     when it started
 */
public record ReplayStatus(long id, String consumer, String remote, List<String> tables, LocalDate from, LocalDate to, int syms,
                           String pace, double speed, String state, String message, long rowsSent, long totalRows, double progress,
                           long rowsPerSecond, long bytesSent, long framesSent, long elapsedMillis, long stream, boolean shared,
                           long heldBytes, long scratchBytes, Instant startedAt) {
}
