package io.jtick.core.journal;

import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Repairs a day's journal whose tail is corrupt (kdb's "truncate the log to its valid length"): reads
 * the day read-only from its first entry, keeps every entry up to the first one that is not a whole,
 * valid update frame (its header, its columns and dictionary as {@link UpdateValidator#validateStructure}
 * checks them, its feed trailer, a sequence above the one before) or that cannot be read at all (a
 * truncated or garbled file), copies them into a fresh queue (each into the daily cycle it had, feed
 * trailers included), moves the original day aside as {@code <date>.corrupt-<time>} with a report of
 * what was dropped ({@value #REPORT_FILE}), and puts the copy in its place. A tickerplant started on
 * it numbers on after the last valid entry; numbered feeds resend what they still hold after it. The
 * tickerplant must not run on that journal meanwhile.
 *
 * <pre>
 * journal repair yyyy-MM-dd [--dir JOURNAL_ROOT] [--dry-run]     (./jtick journal repair ...)
 * </pre>
 */
public final class JournalRepair {
    /** The report left in the moved-aside directory. */
    public static final String REPORT_FILE = "REPAIR-REPORT.txt";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss");

    private JournalRepair() {
    }

    /**
     * What a check or a repair found.
     *
     * @param kept          valid entries from the start (all of them when {@code problem} is null)
     * @param firstSequence sequence of the first kept entry, 0 if none
     * @param lastSequence  sequence of the last kept entry, 0 if none: the tickerplant numbers on after it
     * @param problem       why the first dropped entry was refused, or null when the day is valid
     * @param badIndex      Chronicle index of that entry (hex), or null
     * @param dropped       entries dropped: the bad one and every one after it that could still be read
     * @param droppedBytes  bytes of the dropped entries that could be read
     * @param droppedFrom   sequence of the first dropped entry that had a readable one, 0 if none
     * @param droppedTo     sequence of the last dropped entry that had a readable one, 0 if none
     * @param movedTo       where the original day went (null: not repaired, a check or a valid day)
     */
    public record Report(LocalDate date, Path dir, long kept, long firstSequence, long lastSequence, String problem, String badIndex,
                         long dropped, long droppedBytes, long droppedFrom, long droppedTo, Path movedTo) {
        public boolean valid() {
            return problem == null;
        }

        public String text() {
            final StringBuilder sb = new StringBuilder();
            sb.append("journal ").append(dir).append('\n');
            if (valid()) {
                sb.append("valid: ").append(kept).append(" entries");
                if (kept > 0) {
                    sb.append(", sequences ").append(firstSequence).append("..").append(lastSequence);
                }
                return sb.append(" (nothing to repair)\n").toString();
            }
            sb.append("first bad entry: index 0x").append(badIndex).append(": ").append(problem).append('\n');
            sb.append("kept: ").append(kept).append(" entries");
            if (kept > 0) {
                sb.append(", sequences ").append(firstSequence).append("..").append(lastSequence);
            }
            sb.append('\n');
            sb.append("dropped: ").append(dropped).append(" entries (").append(droppedBytes).append(" bytes readable)");
            if (droppedFrom > 0) {
                sb.append(", sequences seen ").append(droppedFrom).append("..").append(droppedTo);
            }
            sb.append('\n');
            if (movedTo != null) {
                sb.append("the original day is kept at ").append(movedTo).append('\n');
                sb.append("the tickerplant numbers on after ").append(lastSequence > 0 ? "sequence " + lastSequence
                    : "the previous day's last sequence").append("; numbered feeds resend what they still hold after it. ")
                    .append("Subscribers that already hold later sequences (an RDB that kept running) must start afresh.\n");
            } else {
                sb.append("not repaired (dry run): run without --dry-run, with the tickerplant stopped\n");
            }
            return sb.toString();
        }
    }

    /** Reads the day and reports what a repair would keep and drop; changes nothing. */
    public static Report check(final Path root, final LocalDate date) {
        return scan(root.resolve(date.toString()), date, null);
    }

    /**
     * Repairs the day when it has a bad entry (see the class comment); a valid day is left as it is.
     *
     * @throws IllegalArgumentException the day has no journal
     */
    public static Report repair(final Path root, final LocalDate date) throws IOException {
        final Path dir = root.resolve(date.toString());
        final Report found = scan(dir, date, null);
        if (found.valid()) {
            return found;
        }
        final String stamp = LocalDateTime.now().format(STAMP);
        final Path fresh = root.resolve(".repair-" + date + "-" + stamp);
        final Report copied = scan(dir, date, fresh);
        final Path aside = root.resolve(date + ".corrupt-" + stamp);
        Files.move(dir, aside, StandardCopyOption.ATOMIC_MOVE);
        Files.move(fresh, dir, StandardCopyOption.ATOMIC_MOVE);
        final Report done = new Report(date, dir, copied.kept(), copied.firstSequence(), copied.lastSequence(), copied.problem(),
            copied.badIndex(), copied.dropped(), copied.droppedBytes(), copied.droppedFrom(), copied.droppedTo(), aside);
        Files.writeString(aside.resolve(REPORT_FILE), done.text(), StandardCharsets.UTF_8);
        return done;
    }

    /** Reads {@code dir}; with {@code copyTo} set, copies the valid prefix into a new queue there. */
    private static Report scan(final Path dir, final LocalDate date, final Path copyTo) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no journal for that day [dir=" + dir + "]");
        }
        final UpdateValidator validator = new UpdateValidator(null);
        final ByteBuf buf = Unpooled.directBuffer(1 << 16);
        final CycleClock cycleClock = new CycleClock();
        long kept = 0;
        long first = 0;
        long last = 0;
        String problem = null;
        String badIndex = null;
        long dropped = 0;
        long droppedBytes = 0;
        long droppedFrom = 0;
        long droppedTo = 0;
        try (SingleChronicleQueue in = ChronicleJournal.builder(dir).readOnly(true).build();
             ExcerptTailer tailer = in.createTailer();
             SingleChronicleQueue out = copyTo == null ? null : ChronicleJournal.builder(copyTo).timeProvider(cycleClock).build();
             ExcerptAppender appender = out == null ? null : out.createAppender()) {
            final RollCycle roll = in.rollCycle();
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        break;
                    }
                    final Bytes<?> b = dc.wire().bytes();
                    final long pos = b.readPosition();
                    final int entryBytes = (int) b.readRemaining();
                    String why = ChronicleJournal.entryProblem(b);
                    final long sequence = why == null ? b.readLong(pos + FrameDescriptor.SEQUENCE_OFFSET) : 0;
                    if (problem != null) {
                        dropped++;
                        droppedBytes += entryBytes;
                        if (sequence > 0) {
                            droppedFrom = droppedFrom == 0 ? sequence : droppedFrom;
                            droppedTo = sequence;
                        }
                        continue;
                    }
                    buf.clear();
                    JournalReader.copy(b, pos, buf, entryBytes);
                    if (why == null) {
                        final int frameLength = buf.getIntLE(0);
                        if (validator.validateStructure(buf, 0, frameLength) != ErrorCode.NONE) {
                            why = "journal entry is not a whole update frame: " + validator.reason();
                        } else if (sequence <= last) {
                            why = "sequence does not follow the one before [sequence=" + sequence + ", previous=" + last + "]";
                        }
                    }
                    if (why != null) {
                        problem = why;
                        badIndex = Long.toHexString(dc.index());
                        dropped = 1;
                        droppedBytes = entryBytes;
                        if (sequence > 0) {
                            droppedFrom = sequence;
                            droppedTo = sequence;
                        }
                        continue;
                    }
                    if (appender != null) {
                        cycleClock.cycle(roll.toCycle(dc.index()), roll.lengthInMillis());
                        try (DocumentContext w = appender.writingDocument()) {
                            w.wire().bytes().unsafeWrite(buf.memoryAddress(), entryBytes);
                        }
                    }
                    kept++;
                    first = first == 0 ? sequence : first;
                    last = sequence;
                } catch (final RuntimeException | InternalError e) {
                    // the file ends or is garbled where an entry should be: nothing after it can be trusted
                    if (problem == null) {
                        problem = "journal entry cannot be read: " + e;
                        badIndex = Long.toHexString(tailer.index());
                        dropped = 1;
                    }
                    break;
                }
            }
        } finally {
            buf.release();
        }
        return new Report(date, dir, kept, first, last, problem, badIndex, dropped, droppedBytes, droppedFrom, droppedTo, null);
    }

    /** The time the copy's appender sees: inside the daily cycle the entry being copied came from. */
    private static final class CycleClock implements TimeProvider {
        private long millis = System.currentTimeMillis();

        void cycle(final int cycle, final long lengthMillis) {
            millis = cycle * lengthMillis + lengthMillis / 2;
        }

        @Override
        public long currentTimeMillis() {
            return millis;
        }

        @Override
        public long currentTimeMicros() {
            return millis * 1000;
        }

        @Override
        public long currentTimeNanos() {
            return millis * 1_000_000;
        }
    }

    // ---------------------------------------------------------------- command line

    /** {@code journal repair yyyy-MM-dd [--dir D] [--dry-run]}; returns the exit code (0 repaired or valid, 1 failed, 2 usage). */
    public static int cli(final String[] args, final PrintStream out, final PrintStream err) {
        final String usage = "usage: journal repair yyyy-MM-dd [--dir JOURNAL_ROOT (./var/tp/journal)] [--dry-run]";
        if (args.length < 3 || !"journal".equals(args[0]) || !"repair".equals(args[1])) {
            err.println(usage);
            return 2;
        }
        final LocalDate date;
        try {
            date = LocalDate.parse(args[2]);
        } catch (final DateTimeParseException e) {
            err.println("not a date [day=" + args[2] + "]\n" + usage);
            return 2;
        }
        Path root = Path.of("./var/tp/journal");
        boolean dryRun = false;
        for (int i = 3; i < args.length; i++) {
            if ("--dry-run".equals(args[i])) {
                dryRun = true;
            } else if ("--dir".equals(args[i]) && i + 1 < args.length) {
                root = Path.of(args[++i]);
            } else {
                err.println("unknown option " + args[i] + "\n" + usage);
                return 2;
            }
        }
        try {
            final Report r = dryRun ? check(root, date) : repair(root, date);
            out.print(r.text());
            return 0;
        } catch (final IllegalArgumentException | IOException e) {
            err.println("journal repair failed: " + e.getMessage());
            return 1;
        }
    }
}
