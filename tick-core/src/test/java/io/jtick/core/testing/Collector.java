package io.jtick.core.testing;

import io.jtick.core.client.TickListener;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A subscriber that keeps every row it receives (as "table/sym/size" keys) and the stream's events. */
public final class Collector implements TickListener {
    public final List<String> rows = Collections.synchronizedList(new ArrayList<>());
    public final List<Long> sequences = Collections.synchronizedList(new ArrayList<>());
    public final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    public final List<Integer> endOfDays = Collections.synchronizedList(new ArrayList<>());
    public volatile long lastSequence;
    public volatile boolean caughtUp;
    public volatile int subscribedCount;
    public volatile int maxUpdateCount;
    public volatile int disconnects;
    public volatile long duplicates;

    @Override
    public void onSubscribed(final ControlFrames.Subscribed subscribed) {
        subscribedCount++;
    }

    @Override
    public void onUpdate(final TableSchema schema, final UpdateDecoder u, final long receiveNanos) {
        if (u.sequence() <= lastSequence) {
            duplicates++;
            return;
        }
        lastSequence = u.sequence();
        sequences.add(u.sequence());
        maxUpdateCount = Math.max(maxUpdateCount, u.updateCount());
        final int sizeColumn = schema.indexOf("size");
        for (int r = 0; r < u.rowCount(); r++) {
            rows.add(schema.name() + "/" + u.symString(u.symCode(r)) + "/" + (sizeColumn < 0 ? r : u.int64(sizeColumn, r)));
        }
    }

    @Override
    public void onCatchUpDone(final long sequence) {
        caughtUp = true;
    }

    @Override
    public void onEndOfDay(final int epochDay, final long sequence) {
        endOfDays.add(epochDay);
    }

    @Override
    public void onError(final ErrorCode code, final String message) {
        errors.add(code.tag() + ": " + message);
    }

    @Override
    public void onDisconnected() {
        disconnects++;
    }

    public long fromSequence() {
        return lastSequence;
    }
}
