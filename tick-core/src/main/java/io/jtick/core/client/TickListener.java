package io.jtick.core.client;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;

/**
 * What a subscriber hears from its tickerplant. Every callback runs on the client's event-loop
 * thread, in stream order. The decoder and its buffer are valid only during {@link #onUpdate}.
 */
public interface TickListener {
    /** The TP accepted the subscription; schemas of the subscribed tables and its counters. */
    default void onSubscribed(ControlFrames.Subscribed subscribed) {
    }

    /** One update (journal history first when catching up, then live). */
    void onUpdate(TableSchema schema, UpdateDecoder update, long receiveNanos);

    /** Journal history is done; what follows is live. */
    default void onCatchUpDone(long sequence) {
    }

    /** The TP ended the day {@code epochDay}. */
    default void onEndOfDay(int epochDay, long sequence) {
    }

    /** The TP sent an error frame (it may close the connection next). */
    default void onError(ErrorCode code, String message) {
    }

    /** An HDB replay ended (complete, cancelled or failed) with its counts; the HDB closes the connection next. */
    default void onReplayDone(ControlFrames.ReplayDone done) {
    }

    /** The connection is gone; the client reconnects on its own unless closed (or it was a replay). */
    default void onDisconnected() {
    }
}
