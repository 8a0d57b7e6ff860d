"""Real kdb+ clients (PyKX unlicensed, kola) against a jtick tickerplant's kdb+ port.

Each command prints JSON lines on stdout for system-tests' KdbClientsIT to check:
  publish-pandas PORT      PyKX: .u.upd trade with a pandas DataFrame (sync), then a list of columns (async + sync)
  publish-text PORT        PyKX: feed.q's string form, h"(.u.upd[`trade;(...)])" (sync, columns) and one row (async)
  publish-polars PORT      kola: .u.upd trade with a Polars DataFrame (sync and async)
  bad-update PORT          PyKX and kola: .u.upd with a long price column -> the TP's error
  subscribe PORT SYM N     PyKX RawQConnection: .u.sub[`trade; enlist SYM], then N upd messages and .u.end
"""
import datetime as dt
import json
import os
import sys

os.environ.setdefault("PYKX_UNLICENSED", "true")


def out(**kw):
    print(json.dumps(kw, default=str), flush=True)


def publish_pandas(port):
    import numpy as np
    import pandas as pd
    import pykx as kx
    with kx.SyncQConnection("127.0.0.1", port, no_ctx=True) as q:
        df = pd.DataFrame({
            "time": pd.to_timedelta(["09:30:00.000000001", "09:30:01.5", "15:59:59.999999999"]),
            "sym": ["IBM", "MSFT", "IBM"],
            "price": [187.25, 402.5, 188.125],
            "size": np.array([100, 200, 300], dtype=np.int32),
        })
        out(step="pandas", answer=str(q(".u.upd", "trade", df)))
        # a list of columns, no time: the tickerplant stamps it
        cols = [kx.SymbolVector(["KX", "IBM"]), kx.FloatVector([1.5, 2.75]), kx.IntVector([7, 8])]
        q(".u.upd", "trade", cols, wait=False)
        out(step="columns-sync", answer=str(q(".u.upd", "trade", [kx.SymbolVector(["AAPL"]), kx.FloatVector([3.25]),
                                                                  kx.IntVector([9])])))


def publish_text(port):
    import pykx as kx
    with kx.SyncQConnection("127.0.0.1", port, no_ctx=True) as q:
        out(step="text-sync", answer=str(q("(.u.upd[`trade;(09:31:00.000000000 09:31:01.250000000;`IBM`KX;190.5 2.5;10 20i)])")))
        q(".u.upd[`trade;(`IBM;191.0;30i)]", wait=False)
        try:
            q(".u.upd[`trade;(`IBM;price;30i)]")
            out(step="text-error", error=None)
        except kx.QError as e:
            out(step="text-error", error=str(e))


def publish_polars(port):
    import kola
    import polars as pl
    q = kola.Q("127.0.0.1", port, "kola", "")
    q.connect()
    df = pl.DataFrame({
        "sym": pl.Series(["GOOG", "IBM"], dtype=pl.Categorical),
        "price": [10.5, 11.25],
        "size": pl.Series([5, 6], dtype=pl.Int32),
        # kola sends a Duration's raw count as a timespan: give it nanoseconds
        "time": pl.Series([dt.timedelta(hours=10), dt.timedelta(hours=11, microseconds=5)], dtype=pl.Duration("ns")),
    })
    out(step="polars", answer=str(q.sync(".u.upd", "trade", df)))
    strings = pl.DataFrame({"sym": ["ORCL"], "price": [99.0], "size": pl.Series([1], dtype=pl.Int32)})
    q.asyn(".u.upd", "trade", strings)
    out(step="polars-strings", answer=str(q.sync(".u.upd", "trade", strings.with_columns(pl.lit("SAP").alias("sym")))))
    q.disconnect()


def bad_update(port):
    import pykx as kx
    with kx.SyncQConnection("127.0.0.1", port, no_ctx=True) as q:
        try:
            q(".u.upd", "trade", [kx.SymbolVector(["IBM"]), kx.LongVector([1]), kx.IntVector([1])])
            out(client="pykx", error=None)
        except kx.QError as e:
            out(client="pykx", error=str(e))
        out(client="pykx", after=str(q(".u.upd", "trade", [kx.SymbolVector(["IBM"]), kx.FloatVector([1.0]), kx.IntVector([1])])))
    import kola
    k = kola.Q("127.0.0.1", port)
    k.connect()
    try:
        k.sync(".u.upd", "nope", [])
        out(client="kola", error=None)
    except Exception as e:  # kola raises its own error type for a kdb+ error
        out(client="kola", error=str(e))


def subscribe(port, sym, want):
    import asyncio
    asyncio.run(subscribe_async(port, sym, want))


def next_message(q, deadline):
    """The next message pushed to a RawQConnection (poll_recv does not block)."""
    import time
    while time.monotonic() < deadline:
        msg = q.poll_recv()
        if msg is not None:
            return msg
        time.sleep(0.005)
    raise SystemExit("timed out waiting for a message")


async def subscribe_async(port, sym, want):
    import time
    import pykx as kx
    deadline = time.monotonic() + 120
    q = await kx.RawQConnection("127.0.0.1", port, no_ctx=True)
    answer = q(".u.sub", "trade", kx.SymbolVector([sym]))
    q.poll_send()
    answer = (await answer).np()            # unlicensed PyKX cannot index K objects: convert whole
    schema = answer[1]
    out(event="subscribed", table=str(answer[0]), columns=list(schema.columns), dtypes=[str(t) for t in schema.dtypes])
    got = 0
    while True:
        msg = next_message(q, deadline).np()
        if str(msg[0]) == "upd":
            t = msg[2]
            out(event="upd", table=str(msg[1]), dtypes=[str(d) for d in t.dtypes],
                rows=[[int(n), str(s), float(p), int(z)]
                      for n, s, p, z in zip(t["time"].astype("int64"), t["sym"], t["price"], t["size"])])
            got += 1
        elif str(msg[0]) == ".u.end":
            out(event="end", date=str(msg[1]))
            if got >= want:
                break
    await q.close()


if __name__ == "__main__":
    cmd, port = sys.argv[1], int(sys.argv[2])
    if cmd == "publish-pandas":
        publish_pandas(port)
    elif cmd == "publish-text":
        publish_text(port)
    elif cmd == "publish-polars":
        publish_polars(port)
    elif cmd == "bad-update":
        bad_update(port)
    elif cmd == "subscribe":
        subscribe(port, sys.argv[3], int(sys.argv[4]))
    else:
        raise SystemExit("unknown command " + cmd)
