package io.jtick.core.tp;

import io.jtick.core.journal.FeedRuns;
import io.jtick.core.journal.Journal;
import io.jtick.core.journal.JournalReader;
import io.netty.buffer.ByteBuf;

import java.nio.file.Path;
import java.time.LocalDate;

/** The real Chronicle journal, whose appends fail on demand (a full disk, a dead volume). */
final class FaultyJournal implements Journal {
    private final Journal real;
    private final Fault fault;

    private FaultyJournal(final Journal real, final Fault fault) {
        this.real = real;
        this.fault = fault;
    }

    /** The switch, shared by every day's journal one {@link #opener} opens. */
    static final class Fault {
        private int appendsLeft = -1;

        /** Every append from now on throws. */
        void failNow() {
            appendsLeft = 0;
        }

        /** The next {@code n} appends succeed, then every one throws. */
        void failAfter(final int n) {
            appendsLeft = n;
        }

        void heal() {
            appendsLeft = -1;
        }
    }

    static Journal.Opener opener(final Fault fault) {
        return (root, date, previousLastSequence, clock, minFree) -> new FaultyJournal(Journal.open(root, date, previousLastSequence, clock,
            minFree), fault);
    }

    @Override
    public void append(final ByteBuf frame, final int offset, final int length, final long sequence, final FeedRuns feeds) {
        if (fault.appendsLeft == 0) {
            throw new IllegalStateException("injected journal fault: no space left on device");
        }
        if (fault.appendsLeft > 0) {
            fault.appendsLeft--;
        }
        real.append(frame, offset, length, sequence, feeds);
    }

    @Override
    public long sync() {
        return real.sync();
    }

    @Override
    public int pretouch(final int maxPages) {
        return real.pretouch(maxPages);
    }

    @Override
    public JournalReader readerAfter(final long sequence) {
        return real.readerAfter(sequence);
    }

    @Override
    public LocalDate date() {
        return real.date();
    }

    @Override
    public Path dir() {
        return real.dir();
    }

    @Override
    public long firstSequence() {
        return real.firstSequence();
    }

    @Override
    public long lastSequence() {
        return real.lastSequence();
    }

    @Override
    public void close() {
        real.close();
    }
}
