package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.kdb.KdbType;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.KdbObjects;
import io.jtick.core.testing.KdbTestClient;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.sql.q.QParser;
import io.jtick.sql.q.QValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;

import static io.jtick.core.testing.KdbObjects.c;
import static io.jtick.core.testing.KdbObjects.call;
import static io.jtick.core.testing.KdbObjects.chars;
import static io.jtick.core.testing.KdbObjects.f;
import static io.jtick.core.testing.KdbObjects.floats;
import static io.jtick.core.testing.KdbObjects.j;
import static io.jtick.core.testing.KdbObjects.list;
import static io.jtick.core.testing.KdbObjects.longs;
import static io.jtick.core.testing.KdbObjects.show;
import static io.jtick.core.testing.KdbObjects.sym;
import static io.jtick.core.testing.KdbObjects.syms;
import static io.jtick.core.testing.KdbObjects.timestamps;
import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * kdb-tick feed.q's string form, {@code h"(.u.upd[`trade;(...)])"}, on a real tickerplant's kdb+ port with
 * the q front end's parser as its {@link QTextCall} hook: the string and the list form publish the same
 * rows; non-literal text and unknown calls get q errors, counted.
 */
@ExtendWith(LeakCheck.class)
class QTextCallTest {
    private static final long NS_PER_DAY = 86_400_000_000_000L;

    @TempDir
    Path dir;

    private TickerplantServer server;
    private KdbTestClient sub;
    private KdbTestClient feed;

    @BeforeEach
    void start() throws IOException {
        server = new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0), SchemaRegistry.builtIn(0),
            NanoClock.SYSTEM, new TickMetrics()).kdb(KdbSettings.onPort(0)).kdbText(new QTextCall()).start();
        sub = KdbTestClient.connect(server.kdbPort(), "rdb:");
        feed = KdbTestClient.connect(server.kdbPort(), "feed:");
        assertThat(show(sub.call(call(".u.sub", sym("trade"), sym(""))).value())).startsWith("(`trade;");
    }

    @AfterEach
    void stop() throws IOException {
        feed.close();
        sub.close();
        server.close();
    }

    /** The {@code upd} pushed to the subscriber for the next update, as text. */
    private String pushed() throws IOException {
        final KdbObjects.Message m = sub.read();
        assertThat(m.type()).isEqualTo(KdbDescriptor.ASYNC);
        return show(m.value());
    }

    @Test
    void shouldPublishTheStringFormAsTheListForm() throws IOException {
        final long t0 = (LocalDate.of(2026, 11, 29).toEpochDay() - KdbDescriptor.DAYS_1970_2000) * NS_PER_DAY + 36_000_000_000_000L;
        // columns, sync, as feed.q sends them: in parentheses, timestamps, syms, floats, longs, chars
        final String columns =
            "(.u.upd[`trade;(2026.11.29D10:00:00.000000000 2026.11.29D10:00:01.5;`IBM`MSFT;187.25 300.5;100 200;\"NF\")])";
        assertThat(show(feed.call(chars(columns)).value())).isEqualTo("::");
        final String fromText = pushed();
        assertThat(show(feed.call(call(".u.upd", sym("trade"), list(timestamps(t0, t0 + 1_500_000_000L), syms("IBM", "MSFT"),
            floats(187.25, 300.5), longs(100, 200), KdbObjects.chars("NF")))).value())).isEqualTo("::");
        assertThat(fromText).contains("IBM", "MSFT", "187.25", "300.5").isEqualTo(pushed());

        // one row of atoms, async, without time (stamped by the tickerplant, as for the list form)
        feed.send(KdbDescriptor.ASYNC, true, chars(".u.upd[`trade;(`KX;-1.5e;7;\"I\")]"));
        final String row = pushed();
        assertThat(row).contains("sym:[KX] price:[-1.5] size:[7] cond:I");
        // enlist: one-row columns
        feed.send(KdbDescriptor.ASYNC, true, chars(".u.upd[`trade;(enlist `KX;enlist 2.5;enlist 8;enlist \"N\")]"));
        assertThat(pushed()).contains("sym:[KX] price:[2.5] size:[8] cond:N");
        // q's clock as a literal: the row's time is when the text was parsed
        final long before = (System.currentTimeMillis() - 1) * 1_000_000L - KdbDescriptor.NANOS_1970_2000;
        assertThat(show(feed.call(chars(".u.upd[`trade;(.z.p;`KX;3.5;9;\"N\")]")).value())).isEqualTo("::");
        final String clocked = pushed();
        final long t = Long.parseLong(clocked.substring(clocked.indexOf("timestamp[") + 10, clocked.indexOf(']')));
        assertThat(t).isBetween(before, (System.currentTimeMillis() + 1) * 1_000_000L - KdbDescriptor.NANOS_1970_2000);
        await("journalled", Duration.ofSeconds(10), () -> server.status().journalSequence() == 5);
        assertThat(server.status().errors()).isEmpty();
    }

    @Test
    void shouldTypeAWholeStrandByItsLastSuffixAsQDoes() {
        final QValue v = QTextCall.call(QParser.parse(".u.upd[`t;(10 20i;1 2.5e;3 4)]"), "");
        final QValue data = v.item(2);
        assertThat(data.item(0).type()).isEqualTo(KdbType.INT);
        assertThat((long[]) data.item(0).data()).containsExactly(10, 20);
        assertThat(data.item(1).type()).isEqualTo(KdbType.REAL);
        assertThat(data.item(2).type()).isEqualTo(KdbType.LONG);
    }

    @Test
    void shouldAnswerQErrorsForWhatIsNotACallWithLiterals() throws IOException {
        assertThat(show(feed.call(chars(".u.upd[`trade;data]")).value())).contains("nyi [argument data");
        assertThat(show(feed.call(chars("1+2")).value())).contains("nyi [q expression 1+2");
        assertThat(show(feed.call(chars(".u.del[`trade;1]")).value())).contains("nyi [call=.u.del arguments=2]");
        assertThat(show(feed.call(chars(".u.upd[`trade;(`IBM;1;100;\"N\")]")).value()))
            .contains("type [table=trade column=price expected=float got=long]");
        assertThat(show(feed.call(chars(".u.upd[`trade;(`IBM;1.0")).value())).contains("parse [");
        assertThat(show(feed.call(call(".u.upd", sym("trade"), list(sym("IBM"), f(1.5), j(10), c('N')))).value()))
            .as("the connection stays open after refused sync calls").isEqualTo("::");
        pushed();
        assertThat(server.status().errors()).containsEntry("unexpected-message", 4L).containsEntry("wrong-type", 1L);

        feed.send(KdbDescriptor.ASYNC, true, chars(".u.upd[`trade;x]"));
        assertThat(feed.closedByServer()).as("a refused async message closes its connection").isTrue();
        assertThat(server.status().journalSequence()).isEqualTo(1);
    }
}
