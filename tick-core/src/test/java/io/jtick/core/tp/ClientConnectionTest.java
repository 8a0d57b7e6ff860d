package io.jtick.core.tp;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.TruncatedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The connection lifecycle both TP adapters share, on an embedded channel with a bare handler around it. */
@ExtendWith(LeakCheck.class)
class ClientConnectionTest {
    @TempDir
    Path dir;

    private Tickerplant tp;
    private ClientConnection link;
    private EmbeddedChannel ch;

    @BeforeEach
    void start() {
        tp = new Tickerplant(TickerplantSettings.defaults(dir.resolve("journal")), SchemaRegistry.builtIn(0),
            () -> 1_790_000_000_000_000_000L, PooledByteBufAllocator.DEFAULT, new TickMetrics(),
            FaultyJournal.opener(new FaultyJournal.Fault()));
        link = new ClientConnection(tp, LoggerFactory.getLogger(TickerplantAdapter.class),
            "connection", "frame", "rejected input", "anonymous");
        ch = new EmbeddedChannel(new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(final ChannelHandlerContext ctx) {
                link.added(ctx);
            }

            @Override
            public void channelInactive(final ChannelHandlerContext ctx) {
                link.inactive(ctx);
            }
        });
    }

    @AfterEach
    void close() {
        ch.finishAndReleaseAll();
        tp.close();
    }

    @Test
    void shouldRefuseOnceWriteTheAnswerAndClose() {
        final ByteBuf answer = ch.alloc().buffer(4).writeInt(7);
        link.close(ErrorCode.MALFORMED_FRAME, "bad", answer);
        assertThat(link.rejected()).isTrue();
        assertThat(ch.config().isAutoRead()).isFalse();
        final ByteBuf written = ch.readOutbound();
        assertThat(written.readInt()).isEqualTo(7);
        written.release();
        assertThat(ch.isOpen()).isFalse();

        final ByteBuf late = ch.alloc().buffer(4).writeInt(8);
        link.close(ErrorCode.INTERNAL_ERROR, "again", late);
        assertThat(late.refCnt()).isZero();
        assertThat((Object) ch.readOutbound()).isNull();
    }

    @Test
    void shouldCountAFeedOnceAndUncountItWhenItCloses() {
        link.asFeed();
        link.asFeed();
        assertThat(tp.counters().feeds()).isEqualTo(1);
        ch.close();
        assertThat(tp.counters().feeds()).isZero();
    }

    @Test
    void shouldCountATruncatedFrameAndLeaveTheUnexpectedToTheAdapter() {
        assertThat(link.exceptionCaught(ch.pipeline().firstContext(), new TruncatedFrameException(3))).isTrue();
        assertThat(tp.counters().errorsByTag()).containsEntry(ErrorCode.TRUNCATED_FRAME.tag(), 1L);
        assertThat(ch.isOpen()).isTrue();
        assertThat(link.exceptionCaught(ch.pipeline().firstContext(), new IllegalStateException("boom"))).isFalse();
        assertThat(ClientConnection.internalError(new IllegalStateException("boom")))
            .isEqualTo("internal error handling this connection: java.lang.IllegalStateException: boom");
        assertThat(link.exceptionCaught(ch.pipeline().firstContext(), new IOException("reset"))).isTrue();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void shouldDropWithoutAnAnswer() {
        link.name("kdb:alice");
        assertThat(link.name()).isEqualTo("kdb:alice");
        link.drop();
        assertThat(link.rejected()).isTrue();
        assertThat(ch.isOpen()).isFalse();
        assertThat((Object) ch.readOutbound()).isNull();
    }
}
