package io.jtick.core.tp;

import io.jtick.core.kdb.KdbAccess;
import io.jtick.core.kdb.KdbCall;
import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbFrameDecoder;
import io.jtick.core.kdb.KdbReader;
import io.jtick.core.kdb.KdbTextCall;
import io.jtick.core.kdb.KdbType;
import io.jtick.core.kdb.KdbUpdateReader;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.wire.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One kdb+ client of the tickerplant (docs/kdb-ipc.md), on the tickerplant thread: checks its login,
 * then dispatches each message. {@code .u.upd[`t; data]} is converted once into the native UPDATE
 * frame ({@link KdbUpdateReader}) and handed to {@link Tickerplant#onUpdate} like a native feed's;
 * {@code .u.sub[`t; syms]} and kdb-tick r.q's {@code "(.u.sub[`;`];`.u `i`L)"} subscribe the
 * connection, which then receives {@code (`upd;`t;table)} and {@code (`.u.end;date)}. A call sent as q
 * text with literal arguments (feed.q's {@code h"(.u.upd[`trade;(...)])"}) is turned into that list by the
 * {@link KdbTextCall} hook and then handled exactly as the list. Every sync message gets exactly one
 * response: its value, or a kdb+ error naming the problem.
 *
 * <p>Bad input: a refused sync call is answered with the error and the connection stays open (the
 * client knows); a refused async message (an update that does not fit its table, a call jtick does
 * not implement, a malformed message) is counted and the connection closed, as the native protocol
 * does; what was accepted before stays journalled and published. A bad login closes the connection
 * without an answer, which is how kdb+ refuses one. Errors are counted under the native codes.
 *
 * <p>What every connection shares (refuse once and close, feed count, flush, writability, close,
 * common exceptions) is {@link ClientConnection}'s; this class keeps the kdb+ protocol.
 */
final class KdbAdapter extends ChannelInboundHandlerAdapter implements UpdateSource {
    private static final Logger LOG = LoggerFactory.getLogger(KdbAdapter.class);
    private static final byte[] U_UPD = ".u.upd".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] U_SUB = ".u.sub".getBytes(StandardCharsets.US_ASCII);
    /** What kdb-tick's r.q sends to subscribe: the schemas, and the log to replay ({@code .u.i}, {@code .u.L}). */
    static final String REPLAY_SUBSCRIBE = "(.u.sub[`;`];`.u `i`L)";

    private final Tickerplant tp;
    private final KdbAccess access;
    private final KdbTextCall textCalls;
    private final KdbCounters counters;
    private final KdbReader reader = new KdbReader();
    private final KdbCall call = new KdbCall();
    private final KdbUpdateReader updates;
    private final ClientConnection link;
    private ChannelHandlerContext ctx;
    private boolean loggedIn;

    private KdbAdapter(final Tickerplant tp, final KdbAccess access, final KdbTextCall textCalls) {
        this.tp = tp;
        this.access = access;
        this.textCalls = textCalls;
        this.counters = tp.counters().kdb;
        this.updates = new KdbUpdateReader(tp.schemas());
        this.link = new ClientConnection(tp, LOG, "kdb+ connection", "message", "kdb+ message refused", "kdb");
    }

    /**
     * The pipeline of one kdb+ connection: handshake and message splitter, then this adapter;
     * {@code textCalls} turns calls sent as q text into lists (null: only r.q's subscription is understood).
     */
    static void install(final ChannelPipeline pipeline, final Tickerplant tp, final KdbAccess access, final KdbTextCall textCalls) {
        pipeline.addLast("kdb-frames", new KdbFrameDecoder(tp.settings().maxFrameLength()));
        pipeline.addLast(new KdbAdapter(tp, access, textCalls));
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext context) {
        this.ctx = context;
        link.added(context);
    }

    @Override
    public void channelActive(final ChannelHandlerContext context) {
        counters.connection(true);
        context.fireChannelActive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext context, final Object msg) {
        if (msg instanceof KdbFrameDecoder.Login login) {
            onLogin(login);
        } else if (msg instanceof KdbFrameDecoder.Problem problem) {
            tp.countError(problem.code());
            fail(problem.messageType() == KdbDescriptor.SYNC, problem.code(), problem.reason(), true, true);
        } else {
            final ByteBuf m = (ByteBuf) msg;
            try {
                if (loggedIn && !link.rejected()) {
                    onMessage(m);
                }
            } finally {
                m.release();
            }
        }
    }

    private void onLogin(final KdbFrameDecoder.Login login) {
        final KdbAccess.Verdict verdict = access.check(login.user(), login.password(), TlsListener.certified(ctx.channel()));
        counters.login(verdict);
        if (!verdict.allowed()) {
            LOG.warn("kdb+ login refused, closing [remote={}, user={}, reason={}]", ctx.channel().remoteAddress(), login.user(),
                verdict.tag());
            link.drop();
            return;
        }
        loggedIn = true;
        link.name("kdb:" + (login.user().isEmpty() ? "anonymous" : login.user()));
        ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(Math.min(login.capability(), KdbDescriptor.CAPABILITY)));
        LOG.info("kdb+ client [remote={}, name={}, capability={}]", ctx.channel().remoteAddress(), link.name(), login.capability());
    }

    private void onMessage(final ByteBuf m) {
        final long t0 = System.nanoTime();
        reader.wrap(m, m.readerIndex(), m.readableBytes());
        final boolean sync = reader.messageType() == KdbDescriptor.SYNC;
        if (reader.messageType() == KdbDescriptor.RESPONSE) {
            fail(false, ErrorCode.UNEXPECTED_MESSAGE, "unexpected response message from a client", false, true);
            return;
        }
        counters.message(sync);
        try {
            if (!call.parse(reader)) {
                fail(sync, ErrorCode.UNEXPECTED_MESSAGE, "nyi [call=(" + KdbType.name(reader.type(reader.body()))
                    + ") expected=(`.u.upd;`t;data)|(`.u.sub;`t;syms)]", false, false);
            } else if (call.expression() >= 0) {
                onExpression(sync);
            } else {
                onCall(sync);
            }
        } catch (final KdbReader.Malformed | IndexOutOfBoundsException e) {
            fail(sync, ErrorCode.MALFORMED_FRAME, "malformed kdb+ message: " + e.getMessage(), false, false);
        }
        if (sync) {
            counters.call.record(System.nanoTime() - t0);
        }
    }

    /** The call {@link #call} parsed from {@link #reader}: {@code .u.upd}, {@code .u.sub}, or nyi. */
    private void onCall(final boolean sync) {
        if (reader.isText(call.function(), U_UPD) && call.argumentCount() == 2) {
            onUpdate(sync, call.argument(0), call.argument(1));
        } else if (reader.isText(call.function(), U_SUB) && call.argumentCount() == 2) {
            onSubscribe(sync, call.argument(0), call.argument(1));
        } else {
            fail(sync, ErrorCode.UNEXPECTED_MESSAGE, "nyi [call=" + reader.text(call.function()) + " arguments="
                + call.argumentCount() + "]", false, false);
        }
    }

    // ------------------------------------------------------------------ .u.upd

    private void onUpdate(final boolean sync, final int table, final int data) {
        link.asFeed();
        final long t0 = System.nanoTime();
        // the TP's pooled allocator: the channel's default (Netty 4.2: adaptive) gives buffers the journal copies through an NIO view
        final ByteBuf frame = updates.read(reader, table, data, tp.alloc(), tp.dayStartNanos());
        if (frame == null) {
            fail(sync, updates.code(), updates.reason(), false, false);
            return;
        }
        counters.decode.record(System.nanoTime() - t0);
        final ErrorCode code;
        try {
            code = tp.onUpdate(this, frame, frame.readerIndex(), frame.readableBytes());
        } finally {
            frame.release();
        }
        if (code != ErrorCode.NONE) {
            fail(sync, code, tp.lastError(), true, false);
            return;
        }
        counters.rows(updates.rows());
        if (sync && tp.forceBeforeAnswer() != ErrorCode.NONE) {
            fail(true, ErrorCode.JOURNAL_FAILURE, tp.lastError(), true, false);
            return;
        }
        if (sync) {
            final ByteBuf r = KdbWriter.begin(ctx.alloc(), KdbDescriptor.RESPONSE, 2);
            KdbWriter.genericNull(r);
            ctx.writeAndFlush(KdbWriter.end(r));
        }
    }

    // ------------------------------------------------------------------ .u.sub

    private void onSubscribe(final boolean sync, final int tablePos, final int symsPos) {
        final SchemaRegistry schemas = tp.schemas();
        if (reader.type(tablePos) != -KdbType.SYMBOL) {
            fail(sync, ErrorCode.BAD_SUBSCRIPTION, "type [argument=table expected=symbol got=" + KdbType.name(reader.type(tablePos)) + "]",
                false, false);
            return;
        }
        int table = -1;
        if (reader.textLength(tablePos) > 0) {
            table = schemas.indexOf(reader.buffer(), reader.textStart(tablePos), reader.textLength(tablePos));
            if (table < 0) {
                fail(sync, ErrorCode.BAD_SUBSCRIPTION, "unknown table [table=" + reader.text(tablePos) + "]", false, false);
                return;
            }
        }
        final List<String> syms = syms(symsPos);
        if (syms == null) {
            fail(sync, ErrorCode.BAD_SUBSCRIPTION, "type [argument=syms expected=symbol|symbols got=" + KdbType.name(reader.type(symsPos))
                + "]", false, false);
            return;
        }
        if (syms.size() == 1 && syms.get(0).isEmpty()) {
            fail(sync, ErrorCode.BAD_SUBSCRIPTION, "empty sym list: ` subscribes to all syms [argument=syms]", false, false);
            return;
        }
        tp.onKdbSubscribe(ctx.channel(), link.name(), table, syms);
        if (sync) {
            final ByteBuf r = KdbWriter.begin(ctx.alloc(), KdbDescriptor.RESPONSE, 256);
            schemaAnswer(r, table);
            ctx.writeAndFlush(KdbWriter.end(r));
        }
    }

    /** u.q's answer to {@code .u.sub}: {@code (`t; 0#t)} for one table, a list of them for all. */
    private void schemaAnswer(final ByteBuf r, final int table) {
        final SchemaRegistry schemas = tp.schemas();
        if (table >= 0) {
            KdbWriter.list(r, 2);
            KdbWriter.symbol(r, schemas.get(table).name());
            KdbWriter.emptyTable(r, schemas.get(table));
            return;
        }
        KdbWriter.list(r, schemas.size());
        for (int t = 0; t < schemas.size(); t++) {
            KdbWriter.list(r, 2);
            KdbWriter.symbol(r, schemas.get(t).name());
            KdbWriter.emptyTable(r, schemas.get(t));
        }
    }

    /**
     * The sym list of {@code .u.sub}: null symbol = all (empty list); a symbol, a symbol vector or a
     * general list of symbols or strings; a list holding an empty sym is returned as {@code [""]}. Null
     * when it is none of these.
     */
    private List<String> syms(final int pos) {
        final int t = reader.type(pos);
        final List<String> out = new ArrayList<>();
        if (t == -KdbType.SYMBOL) {
            if (reader.textLength(pos) > 0) {
                out.add(reader.text(pos));
            }
            return out;
        }
        if (t == KdbType.SYMBOL) {
            int p = KdbReader.values(pos);
            for (int k = reader.count(pos); k > 0; k--) {
                final int end = reader.symbolEnd(p);
                out.add(reader.buffer().toString(p, end - p, StandardCharsets.ISO_8859_1));
                p = end + 1;
            }
            return out.isEmpty() || out.contains("") ? List.of("") : out;
        }
        if (t == KdbType.LIST) {
            int p = KdbReader.values(pos);
            for (int k = reader.count(pos); k > 0; k--) {
                if (reader.type(p) != -KdbType.SYMBOL && reader.type(p) != KdbType.CHAR) {
                    return null;
                }
                out.add(reader.text(p));
                p = reader.skip(p);
            }
            return out.isEmpty() || out.contains("") ? List.of("") : out;
        }
        return null;
    }

    /** A q expression: r.q's subscription, or a call with literal arguments ({@link #onTextCall}). */
    private void onExpression(final boolean sync) {
        final String text = reader.text(call.expression());
        if (!text.strip().equals(REPLAY_SUBSCRIBE)) {
            if (textCalls == null) {
                fail(sync, ErrorCode.UNEXPECTED_MESSAGE, "nyi [call=" + abbreviate(text)
                    + " reason=jtick evaluates no q expressions; send (`.u.upd;`t;data) or (`.u.sub;`t;syms)]", false, false);
            } else {
                onTextCall(sync, text);
            }
            return;
        }
        tp.onKdbSubscribe(ctx.channel(), link.name(), -1, List.of());
        if (sync) {
            // (.u.sub[`;`]; (.u.i; .u.L)): a null log count tells r.q's .u.rep there is no q log to replay
            final ByteBuf r = KdbWriter.begin(ctx.alloc(), KdbDescriptor.RESPONSE, 256);
            KdbWriter.list(r, 2);
            schemaAnswer(r, -1);
            KdbWriter.list(r, 2);
            KdbWriter.longAtom(r, KdbDescriptor.NULL_LONG);
            KdbWriter.symbol(r, "");
            ctx.writeAndFlush(KdbWriter.end(r));
        }
    }

    /**
     * A call as q text ({@code .u.upd[`trade;(...)]}): the hook writes it as the list a client would
     * have sent, in a message of the same type, which is then read and dispatched as that list. The
     * text's own message is still held by {@link #channelRead}, so only {@link #reader} moves.
     */
    private void onTextCall(final boolean sync, final String text) {
        final ByteBuf list = KdbWriter.begin(ctx.alloc(), sync ? KdbDescriptor.SYNC : KdbDescriptor.ASYNC, 2 * text.length() + 16);
        try {
            try {
                textCalls.write(text, list);
            } catch (final KdbTextCall.Refused e) {
                fail(sync, ErrorCode.UNEXPECTED_MESSAGE, e.getMessage(), false, false);
                return;
            }
            KdbWriter.end(list);
            reader.wrap(list, list.readerIndex(), list.readableBytes());
            if (!call.parse(reader) || call.expression() >= 0) {
                fail(sync, ErrorCode.UNEXPECTED_MESSAGE, "nyi [call=" + abbreviate(text) + " reason=not a call]", false, false);
                return;
            }
            onCall(sync);
        } finally {
            list.release();
        }
    }

    private static String abbreviate(final String text) {
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }

    // ------------------------------------------------------------------ errors and connection

    /**
     * A refused message: counted (unless {@code counted}); a sync one is answered with the error, an
     * async one (or any when {@code close}) closes the connection.
     */
    private void fail(final boolean sync, final ErrorCode code, final String reason, final boolean counted, final boolean close) {
        if (!counted) {
            tp.countError(code);
        }
        if (link.rejected()) {
            return;
        }
        if (sync && !close) {
            LOG.warn("kdb+ call refused [remote={}, name={}, code={}]: {}", ctx.channel().remoteAddress(), link.name(), code.tag(), reason);
            ctx.writeAndFlush(KdbWriter.error(ctx.alloc(), reason));
            return;
        }
        link.close(code, reason, sync ? KdbWriter.error(ctx.alloc(), reason) : null);
    }

    @Override
    public boolean kdb() {
        return true;
    }

    /** An update the timer could not journal (timer log+publish): counted by the tickerplant; the connection closes. */
    @Override
    public void refuse(final ErrorCode code, final String reason) {
        fail(false, code, reason, true, true);
    }

    @Override
    public void pauseInput() {
        link.pauseInput();
    }

    @Override
    public void resumeInput() {
        link.resumeInput();
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext context) {
        link.readComplete();
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext context) {
        link.writabilityChanged(context);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext context) {
        counters.connection(false);
        link.inactive(context);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext context, final Throwable cause) {
        if (!link.exceptionCaught(context, cause)) {
            fail(false, ErrorCode.INTERNAL_ERROR, ClientConnection.internalError(cause), false, true);
        }
    }
}
