package io.jtick.core.cluster;

import io.aeron.Publication;
import io.jtick.core.tp.UpdateSource;
import io.jtick.core.wire.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What waits for a back-pressured log: order, one pause and one resume per sender, each sender refused once. */
class IngressBacklogTest {

    /** A sender that records what it is told. */
    private static final class Sender implements UpdateSource {
        final List<String> events = new ArrayList<>();
        private final boolean kdb;

        Sender(final boolean kdb) {
            this.kdb = kdb;
        }

        @Override
        public void refuse(final ErrorCode code, final String reason) {
            events.add("refuse " + code.tag() + " " + reason);
        }

        @Override
        public boolean kdb() {
            return kdb;
        }

        @Override
        public void pauseInput() {
            events.add("pause");
        }

        @Override
        public void resumeInput() {
            events.add("resume");
        }
    }

    private static ByteBuf frame(final int value) {
        final ByteBuf b = Unpooled.buffer(16);
        b.writeIntLE(0xABCD).writeIntLE(value);
        return b;
    }

    @Test
    void shouldOfferWaitingUpdatesInArrivalOrderAndResumeEachSenderOnceTheLogTakesThemAll() {
        final IngressBacklog backlog = new IngressBacklog();
        final Sender a = new Sender(false);
        final Sender b = new Sender(false);
        for (int k = 1; k <= 5; k++) {
            final ByteBuf f = frame(k);
            backlog.add(k % 2 == 0 ? b : a, null, 0, f, 4, 4, k); // only the value is kept: offset 4, length 4
            f.release();
        }
        assertThat(a.events).containsExactly("pause");
        assertThat(b.events).containsExactly("pause");
        assertThat(backlog.size()).isEqualTo(5);

        // the log takes two, then pushes back: three keep waiting, nobody resumes
        final List<Integer> taken = new ArrayList<>();
        final int[] budget = {2};
        final IngressBacklog.Offer log = e -> {
            if (budget[0]-- <= 0) {
                return Publication.BACK_PRESSURED;
            }
            taken.add(e.frame().getIntLE(e.frame().readerIndex()));
            return 64;
        };
        assertThat(backlog.drain(log)).isEqualTo(Publication.BACK_PRESSURED);
        assertThat(taken).containsExactly(1, 2);
        assertThat(backlog.size()).isEqualTo(3);
        assertThat(a.events).containsExactly("pause");

        budget[0] = 10;
        assertThat(backlog.drain(log)).isEqualTo(1);
        assertThat(taken).containsExactly(1, 2, 3, 4, 5);
        assertThat(backlog.isEmpty()).isTrue();
        assertThat(a.events).containsExactly("pause", "resume");
        assertThat(b.events).containsExactly("pause", "resume");
        assertThat(backlog.blockedNanos(System.nanoTime())).isZero();
    }

    @Test
    void shouldRefuseEverySenderOnceWithTheWordsForItsProtocolAndReleaseTheCopies() {
        final IngressBacklog backlog = new IngressBacklog();
        final Sender nativeFeed = new Sender(false);
        final Sender kdbFeed = new Sender(true);
        final List<ByteBuf> originals = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            final ByteBuf f = frame(k);
            originals.add(f);
            backlog.add(k < 3 ? nativeFeed : kdbFeed, "feed-a".getBytes(), k + 1, f, 0, 8, 100 + k);
        }
        final List<ByteBuf> copies = new ArrayList<>();
        backlog.drain(e -> {
            copies.add(e.frame());
            return Publication.BACK_PRESSURED;
        });
        assertThat(backlog.blockedNanos(110)).isEqualTo(10);

        final int refused = backlog.refuseAll(ErrorCode.NOT_LEADER, s -> s.kdb() ? "kdb words" : "native words");

        assertThat(refused).isEqualTo(4);
        assertThat(nativeFeed.events).containsExactly("pause", "refuse not-leader native words", "resume");
        assertThat(kdbFeed.events).containsExactly("pause", "refuse not-leader kdb words", "resume");
        assertThat(copies.get(0).refCnt()).as("the waiting copy is released").isZero();
        assertThat(originals).allSatisfy(o -> assertThat(o.refCnt()).as("the caller's frame is the caller's").isEqualTo(1));
        assertThat(backlog.isEmpty()).isTrue();
    }
}
