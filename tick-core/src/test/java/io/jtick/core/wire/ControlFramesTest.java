package io.jtick.core.wire;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class ControlFramesTest {
    @Test
    void shouldRoundTripControlFrames() {
        final ByteBuf sub = ControlFrames.subscribe(PooledByteBufAllocator.DEFAULT, 17, List.of("trade"), List.of("IBM", "MSFT"));
        try {
            final ControlFrames.Subscribe s = ControlFrames.readSubscribe(sub);
            assertThat(s.fromSequence()).isEqualTo(17);
            assertThat(s.tables()).containsExactly("trade");
            assertThat(s.syms()).containsExactly("IBM", "MSFT");
        } finally {
            sub.release();
        }
        final ByteBuf ok = ControlFrames.subscribed(PooledByteBufAllocator.DEFAULT, 5, 6, 20_000, List.of(TableSchema.quote(2)));
        try {
            final ControlFrames.Subscribed s = ControlFrames.readSubscribed(ok);
            assertThat(s.sequence()).isEqualTo(5);
            assertThat(s.journalSequence()).isEqualTo(6);
            assertThat(s.epochDay()).isEqualTo(20_000);
            assertThat(s.schemas().get("quote")).isEqualTo(TableSchema.quote(2));
        } finally {
            ok.release();
        }
        final ByteBuf err = ControlFrames.error(PooledByteBufAllocator.DEFAULT, ErrorCode.WRONG_TYPE, "bad [column=price]");
        try {
            assertThat(ControlFrames.readError(err)).isEqualTo(new ControlFrames.Error(ErrorCode.WRONG_TYPE, "bad [column=price]"));
        } finally {
            err.release();
        }
        final ByteBuf eod = ControlFrames.endOfDay(PooledByteBufAllocator.DEFAULT, 20_001, 99);
        try {
            assertThat(ControlFrames.readEndOfDay(eod)).isEqualTo(new ControlFrames.EndOfDay(20_001, 99));
        } finally {
            eod.release();
        }
    }


    @Test
    void shouldRoundTripHelloHeartbeatAndCatchUpDoneWithTheirTypeInTheHeader() {
        final ByteBuf hello = ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "feed-1");
        final ByteBuf heartbeat = ControlFrames.heartbeat(PooledByteBufAllocator.DEFAULT, 1_790_000_000_000_000_000L);
        final ByteBuf done = ControlFrames.catchUpDone(PooledByteBufAllocator.DEFAULT, 42);
        try {
            assertThat(ControlFrames.readHello(hello)).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_FEED, FrameDescriptor.VERSION,
                "feed-1"));
            assertThat(ControlFrames.type(hello, 0)).isEqualTo(MessageType.HELLO);
            assertThat(hello.getIntLE(FrameDescriptor.LENGTH_OFFSET)).isEqualTo(hello.readableBytes());
            assertThat(ControlFrames.type(heartbeat, 0)).isEqualTo(MessageType.HEARTBEAT);
            assertThat(ControlFrames.readSequence(heartbeat)).isEqualTo(1_790_000_000_000_000_000L);
            assertThat(ControlFrames.type(done, 0)).isEqualTo(MessageType.CATCH_UP_DONE);
            assertThat(ControlFrames.readSequence(done)).isEqualTo(42);
        } finally {
            hello.release();
            heartbeat.release();
            done.release();
        }
    }

    @Test
    void shouldCarryTheApiTokenInAProtocolTwoHelloAndNeverShowIt() {
        final ByteBuf withToken = ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_SUBSCRIBER, "rdb",
            FrameDescriptor.PROTOCOL_VERSION, 0, "s3cret-token");
        final ByteBuf flagsOnly = ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "md", 2, 1);
        flagsOnly.writerIndex(flagsOnly.writerIndex() - 1).setIntLE(0, flagsOnly.readableBytes());
        try {
            final ControlFrames.Hello h = ControlFrames.readHello(withToken);
            assertThat(h).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_SUBSCRIBER, 2, "rdb", 0, "s3cret-token"));
            assertThat(h.toString()).doesNotContain("s3cret").contains("token=(set)");
            assertThat(ControlFrames.readHello(flagsOnly)).as("a protocol 2 HELLO that ends after its flags has no token")
                .isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_FEED, 2, "md", 1, null));
            assertThatThrownBy(() -> ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "md", 1, 0, "t"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("protocol 2");
            final String tooLong = "x".repeat(256);
            assertThatThrownBy(() -> ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "md", 2, 0, tooLong))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 255").hasMessageNotContaining("xxx");
            assertThat(ErrorCode.fromCode(15)).isEqualTo(ErrorCode.ACCESS_DENIED);
            assertThat(ErrorCode.ACCESS_DENIED.tag()).isEqualTo("access-denied");
        } finally {
            withToken.release();
            flagsOnly.release();
        }
    }

    @Test
    void shouldCarryANumberedFeedsHelloFlagsAndItsAcknowledgementsAndReadProtocolOneHellosWithoutFlags() {
        final ByteBuf v2 = ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "md",
            FrameDescriptor.PROTOCOL_VERSION, FrameDescriptor.HELLO_FLAG_NUMBERED);
        final ByteBuf v1 = ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "old");
        final ByteBuf ack = ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, 123_456_789_012L);
        try {
            final ControlFrames.Hello h = ControlFrames.readHello(v2);
            assertThat(h).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_FEED, 2, "md", FrameDescriptor.HELLO_FLAG_NUMBERED));
            assertThat(h.numbered()).isTrue();
            assertThat(v2.readableBytes()).as("flags and an empty token: two bytes more than protocol 1")
                .isEqualTo(v1.readableBytes() - 3 + 2 + 1 + 1);
            final ControlFrames.Hello old = ControlFrames.readHello(v1);
            assertThat(old).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_FEED, 1, "old"));
            assertThat(old.numbered()).isFalse();
            assertThat(ControlFrames.type(ack, 0)).isEqualTo(MessageType.FEED_ACK);
            assertThat(MessageType.name(MessageType.FEED_ACK)).isEqualTo("feed-ack");
            assertThat(ControlFrames.readSequence(ack)).isEqualTo(123_456_789_012L);
            assertThat(ErrorCode.fromCode(14)).isEqualTo(ErrorCode.FEED_REPLACED);
            assertThat(ErrorCode.FEED_REPLACED.tag()).isEqualTo("feed-replaced");
        } finally {
            v2.release();
            v1.release();
            ack.release();
        }
    }

    @Test
    void shouldCutLongErrorMessagesAndRefuseNamesThatDoNotFitAByte() {
        final ByteBuf err = ControlFrames.error(PooledByteBufAllocator.DEFAULT, ErrorCode.MALFORMED_FRAME, "x".repeat(10_000));
        try {
            assertThat(ControlFrames.readError(err).message()).hasSize(4000);
        } finally {
            err.release();
        }
        assertThatThrownBy(() -> ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "n".repeat(256)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 255");
        assertThat(ErrorCode.fromCode(999)).as("an unknown code reads as malformed").isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(ErrorCode.SLOW_SUBSCRIBER.tag()).isEqualTo("slow-subscriber");
    }

    @Test
    void shouldRefuseASubscribeWhoseSymCountCannotBeRight() {
        final ByteBuf sub = ControlFrames.subscribe(PooledByteBufAllocator.DEFAULT, -1, List.of(), List.of());
        try {
            sub.setIntLE(sub.writerIndex() - 4, 1_000_000);
            assertThatThrownBy(() -> ControlFrames.readSubscribe(sub)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("syms=1000000");
        } finally {
            sub.release();
        }
    }
}
