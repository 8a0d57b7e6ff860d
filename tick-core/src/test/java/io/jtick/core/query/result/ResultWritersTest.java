package io.jtick.core.query.result;

import io.jtick.core.query.model.Json;
import io.jtick.core.query.model.ValueType;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class ResultWritersTest {
    private static final List<String> NAMES = List.of("time", "date", "sym", "price", "f", "size", "c", "ok", "none");
    private static final List<ValueType> TYPES = List.of(ValueType.TIMESTAMP, ValueType.DATE, ValueType.SYMBOL, ValueType.FLOAT64,
        ValueType.FLOAT32, ValueType.INT64, ValueType.CHAR, ValueType.BOOL, ValueType.FLOAT64);
    private static final long T = 1_795_253_400_123_000_000L; // 2026-11-21T09:30:00.123Z

    private static void rows(final ResultSink s) {
        s.begin(NAMES, TYPES);
        s.value(T);
        s.value(20_778L);
        s.symbol("A\"B");
        s.value(101.25);
        s.value((double) 0.1f);
        s.value(300L);
        s.value((long) 'N');
        s.value(1L);
        s.value(Double.NaN);
        s.endRow();
        s.value(T + 7);
        s.nullValue();
        s.symbol("x,y");
        s.value(-0.5);
        s.nullValue();
        s.value(-7L);
        s.value((long) ',');
        s.value(0L);
        s.nullValue();
        s.endRow();
        s.end(new ResultStats(2, 10, 1, 42_000));
    }

    @Test
    void shouldWriteJson() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final JsonResultWriter w = new JsonResultWriter(out, 1 << 20);
        rows(w);
        final String json = out.toString(StandardCharsets.UTF_8);
        assertThat(json).isEqualTo("{\"columns\":[\"time\",\"date\",\"sym\",\"price\",\"f\",\"size\",\"c\",\"ok\",\"none\"],"
            + "\"types\":[\"timestamp\",\"date\",\"symbol\",\"float64\",\"float32\",\"int64\",\"char\",\"bool\",\"float64\"],\"rows\":[\n"
            + "[\"2026-11-21T09:30:00.123Z\",\"2026-11-21\",\"A\\\"B\",101.25,0.1,300,\"N\",true,null],\n"
            + "[\"2026-11-21T09:30:00.123000007Z\",null,\"x,y\",-0.5,null,-7,\",\",false,null]],"
            + "\"rowCount\":2,\"rowsScanned\":10,\"segments\":1,\"elapsedMicros\":42}");
        assertThat(Json.parse(json)).isInstanceOf(Map.class);
        assertThat(w.committed()).isTrue();
    }

    @Test
    void shouldWriteCsv() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        rows(new CsvResultWriter(out, 1 << 20));
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("time,date,sym,price,f,size,c,ok,none\n"
            + "2026-11-21T09:30:00.123Z,2026-11-21,\"A\"\"B\",101.25,0.1,300,N,true,\n"
            + "2026-11-21T09:30:00.123000007Z,,\"x,y\",-0.5,,-7,\",\",false,\n");
    }

    @Test
    void shouldWriteInfinitiesAsJsonNullsAndAsCsvText() {
        final List<String> names = List.of("x", "f");
        final List<ValueType> types = List.of(ValueType.FLOAT64, ValueType.FLOAT32);
        final ByteArrayOutputStream json = new ByteArrayOutputStream();
        final ByteArrayOutputStream csv = new ByteArrayOutputStream();
        for (final ResultSink s : List.of(new JsonResultWriter(json, 1 << 20), new CsvResultWriter(csv, 1 << 20))) {
            s.begin(names, types);
            s.value(Double.POSITIVE_INFINITY);
            s.value(Double.NEGATIVE_INFINITY);
            s.endRow();
            s.end(new ResultStats(1, 1, 1, 0));
        }
        assertThat(json.toString(StandardCharsets.UTF_8)).contains("\"rows\":[\n[null,null]],");
        assertThat(csv.toString(StandardCharsets.UTF_8)).isEqualTo("x,f\nInfinity,-Infinity\n");
    }

    @Test
    void shouldKeepSmallResultsInTheBufferUntilTheEnd() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final JsonResultWriter w = new JsonResultWriter(out, 1 << 20);
        w.begin(List.of("n"), List.of(ValueType.INT64));
        w.value(1L);
        w.endRow();
        assertThat(w.committed()).as("nothing sent before the buffer fills").isFalse();
        assertThat(out.size()).isZero();
    }

    @Test
    void shouldFormatTimestampsExactlyAsInstant() {
        final SplittableRandom r = new SplittableRandom(1);
        final byte[] buf = new byte[64];
        for (int i = 0; i < 20_000; i++) {
            long nanos = r.nextLong(-2_000_000_000_000_000_000L, 4_000_000_000_000_000_000L);
            switch (i % 4) {
                case 0:
                    nanos -= Math.floorMod(nanos, 1_000_000_000L);
                    break;
                case 1:
                    nanos -= Math.floorMod(nanos, 1_000_000L);
                    break;
                case 2:
                    nanos -= Math.floorMod(nanos, 1_000L);
                    break;
                default:
                    break;
            }
            final String want = Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L))
                .toString();
            assertThat(new String(buf, 0, TimeFormat.timestamp(nanos, buf, 0), StandardCharsets.US_ASCII)).isEqualTo(want);
            if (want.length() >= 20 && want.charAt(4) == '-') {
                assertThat(TimeFormat.parseIso(want)).as(want).isEqualTo(nanos);
            }
        }
        assertThat(new String(buf, 0, TimeFormat.timestamp(Long.MIN_VALUE, buf, 0), StandardCharsets.US_ASCII))
            .isEqualTo("1677-09-21T00:12:43.145224192Z");
    }

    @Test
    void shouldWriteEveryDoubleSoThatItParsesBackExactly() {
        final SplittableRandom r = new SplittableRandom(3);
        final List<Double> values = new java.util.ArrayList<>(List.of(0.0, -0.0, 1.0, -1.0, 0.1, 0.3, 1e-7, 123456789012.5,
            999999999999.999, 1e12, 2.5e-300, Double.MAX_VALUE, Double.MIN_VALUE, 14.8, 101.25, 157.8, 0.01 * 3));
        for (int i = 0; i < 50_000; i++) {
            values.add(Math.round(r.nextDouble() * 1e6) / Math.pow(10, r.nextInt(7)));
            values.add(r.nextDouble() * Math.pow(10, r.nextInt(-5, 14)) * (r.nextBoolean() ? 1 : -1));
            values.add(Double.longBitsToDouble(r.nextLong()));
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final CsvResultWriter w = new CsvResultWriter(out, Long.MAX_VALUE);
        w.begin(List.of("x"), List.of(ValueType.FLOAT64));
        for (final double v : values) {
            w.value(v);
            w.endRow();
        }
        w.end(new ResultStats(values.size(), 0, 1, 0));
        final String[] lines = out.toString(StandardCharsets.US_ASCII).split("\n");
        for (int i = 0; i < values.size(); i++) {
            final double v = values.get(i);
            if (Double.isNaN(v)) {
                assertThat(lines[i + 1]).isEmpty();
            } else {
                assertThat(Double.doubleToRawLongBits(Double.parseDouble(lines[i + 1]))).as(lines[i + 1] + " for " + v)
                    .isEqualTo(Double.doubleToRawLongBits(v));
            }
        }
        assertThat(lines[1 + values.indexOf(14.8)]).isEqualTo("14.8");
        assertThat(lines[1 + 2]).isEqualTo("1.0");
        assertThat(lines[1 + 1]).isEqualTo("-0.0");
    }
}
