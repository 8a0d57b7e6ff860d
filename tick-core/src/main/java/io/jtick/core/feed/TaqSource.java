package io.jtick.core.feed;

import io.jtick.core.schema.TableSchema;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Replays the NYSE TAQ-format sample ({@code trades.csv.gz}: DT,EX,SYMBOL,COND,SIZE,PRICE,CORR;
 * {@code quotes.csv.gz}: DT,EX,BID,BIDSIZ,OFR,OFRSIZ,SYMBOL), columns found by header name.
 * trade: time = DT (UTC), sym = SYMBOL, price = PRICE, size = SIZE, cond = first character of COND
 * (space when empty). quote: bid = BID, ask = OFR, bsize = BIDSIZ, asize = OFRSIZ (round lots, as
 * recorded). Extra float columns stay 0.
 */
public final class TaqSource extends FileSource {
    private final CsvLineReader in;
    private final boolean trade;
    private final int dt;
    private final int symbol;
    private final int a;
    private final int b;
    private final int c;
    private final int d;
    /** Fields a data line needs: one past the highest column used. */
    private final int need;

    private TaqSource(final TableSchema schema, final CsvLineReader in, final boolean trade) {
        super(schema);
        this.in = in;
        this.trade = trade;
        if (!in.next()) {
            in.close();
            throw new IllegalArgumentException("empty TAQ file [file=" + in.name() + "]");
        }
        dt = column("DT");
        symbol = column("SYMBOL");
        if (trade) {
            a = column("PRICE");
            b = column("SIZE");
            c = column("COND");
            d = -1;
        } else {
            a = column("BID");
            b = column("OFR");
            c = column("BIDSIZ");
            d = column("OFRSIZ");
        }
        need = 1 + Math.max(Math.max(dt, symbol), Math.max(Math.max(a, b), Math.max(c, d)));
    }

    /** {@code trades.csv.gz} as the trade table with {@code ex} extra float columns. */
    public static TaqSource trades(final Path file, final int ex) throws IOException {
        return new TaqSource(TableSchema.trade(ex), open(file), true);
    }

    /** {@code quotes.csv.gz} as the quote table with {@code ex} extra float columns. */
    public static TaqSource quotes(final Path file, final int ex) throws IOException {
        return new TaqSource(TableSchema.quote(ex), open(file), false);
    }

    private static CsvLineReader open(final Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("TAQ file not found [file=" + file + "]");
        }
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        if (file.getFileName().toString().endsWith(".gz")) {
            raw = new GZIPInputStream(raw, 1 << 16);
        }
        return new CsvLineReader(raw, file.toString());
    }

    private int column(final String name) {
        final byte[] n = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int i = 0; i < in.fieldCount(); i++) {
            if (in.fieldEquals(i, n)) {
                return i;
            }
        }
        in.close();
        throw new IllegalArgumentException("TAQ header has no column [file=" + in.name() + ", column=" + name + "]");
    }

    @Override
    protected boolean readRow() {
        while (in.next()) {
            try {
                in.require(need);
                rowTime = in.parseIsoUtcNanos(dt);
                final long[] v = row;
                if (trade) {
                    v[2] = bits(in.parseDouble(a));
                    v[3] = in.parseLong(b);
                    v[4] = in.firstChar(c, ' ');
                } else {
                    v[2] = bits(in.parseDouble(a));
                    v[3] = bits(in.parseDouble(b));
                    v[4] = in.parseLong(c);
                    v[5] = in.parseLong(d);
                }
                rowSym = internSym(in, symbol);
                return true;
            } catch (final IllegalArgumentException e) {
                skip(e);
            }
        }
        return false;
    }

    @Override
    protected void closeFiles() {
        in.close();
    }
}
