package io.jtick.core.wire;

import io.jtick.core.testing.LeakCheck;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Event loops that spin before they block: I/O, tasks given from other threads and scheduled tasks all run, on real sockets. */
@ExtendWith(LeakCheck.class)
class TransportTest {
    private static final long SPIN = TimeUnit.MICROSECONDS.toNanos(200);

    @Test
    void shouldEchoOverLoopbackAndRunEveryTaskOnLoopsThatSpin() throws Exception {
        final EventLoopGroup server = Transport.newGroup(1, "spin-test-server", SPIN);
        final EventLoopGroup client = Transport.newGroup(1, "spin-test-client", SPIN);
        try {
            final Channel listener = new ServerBootstrap().group(server).channel(Transport.serverChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
                                ctx.writeAndFlush(msg);
                            }
                        });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
            final int messages = 500;
            final AtomicLong echoed = new AtomicLong();
            final CountDownLatch all = new CountDownLatch(1);
            final Channel ch = new Bootstrap().group(client).channel(Transport.socketChannel(client))
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
                        final ByteBuf b = (ByteBuf) msg;
                        if (echoed.addAndGet(b.readableBytes()) == messages * 8L) {
                            all.countDown();
                        }
                        b.release();
                    }
                }).connect(listener.localAddress()).sync().channel();
            // each write is a task given from this thread to a loop that is spinning or blocked: both must take it
            for (int k = 0; k < messages; k++) {
                ch.writeAndFlush(ch.alloc().directBuffer(8).writeLong(k));
                if (k % 100 == 0) {
                    Thread.onSpinWait();
                }
            }
            assertThat(all.await(30, TimeUnit.SECONDS)).as("every byte echoed, %d of %d", echoed.get(), messages * 8L).isTrue();

            final AtomicInteger ran = new AtomicInteger();
            for (int k = 0; k < 100; k++) {
                client.execute(ran::incrementAndGet);
            }
            client.schedule(ran::incrementAndGet, 5, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
            client.submit(() -> { }).get(10, TimeUnit.SECONDS);
            assertThat(ran.get()).as("tasks and the scheduled task").isEqualTo(101);
            assertThat(((InetSocketAddress) ch.localAddress()).getPort()).isPositive();
            ch.close().sync();
            listener.close().sync();
        } finally {
            client.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            server.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void shouldRefuseANegativeSpin() {
        assertThatThrownBy(() -> Transport.newGroup(1, "x", -1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("spinNanos=-1");
    }
}
