"""Real kdb+ clients (PyKX unlicensed, kola) against a jtick tickerplant's kdb+ port.

Each command prints JSON lines on stdout for system-tests' KdbClientsIT to check:
  publish-pandas PORT      PyKX: .u.upd trade with a pandas DataFrame (sync), then a list of columns (async + sync)
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
        table = kx.toq(df)
        out(step="pandas", sent=str(table.dtypes["datatypes"].py() if hasattr(table, "dtypes") else ""),
            answer=str(q(".u.upd", "trade", table)))
        # a list of columns, no time: the tickerplant stamps it
        cols = [kx.SymbolVector(["KX", "IBM"]), kx.FloatVector([1.5, 2.75]), kx.IntVector([7, 8])]
        q(".u.upd", "trade", cols, wait=False)
        out(step="columns-sync", answer=str(q(".u.upd", "trade", [kx.SymbolVector(["AAPL"]), kx.FloatVector([3.25]),
                                                                  kx.IntVector([9])])))


def publish_polars(port):
    import kola
    import polars as pl
    q = kola.Q("127.0.0.1", port, "kola", "")
    q.connect()
    df = pl.DataFrame({
        "sym": pl.Series(["GOOG", "IBM"], dtype=pl.Categorical),
        "price": [10.5, 11.25],
        "size": pl.Series([5, 6], dtype=pl.Int32),
        "time": [dt.timedelta(hours=10), dt.timedelta(hours=11, microseconds=5)],
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
    import pykx as kx
    q = kx.RawQConnection("127.0.0.1", port, no_ctx=True)
    fut = q(".u.sub", "trade", kx.SymbolVector([sym]))
    q.poll_send()
    while not fut.done():
        q.poll_recv()
    answer = fut.result()
    out(event="subscribed", answer=[str(answer[0]), list(answer[1].columns), [str(t) for t in answer[1].dtypes["datatypes"].py()]])
    got = 0
    while True:
        msg = q.poll_recv()
        if msg is None:
            continue
        name = str(msg[0])
        if name == "upd":
            t = msg[2].pd()
            out(event="upd", table=str(msg[1]), rows=[[int(r.time.value), r.sym, float(r.price), int(r.size)] for r in t.itertuples()])
            got += 1
        elif name == ".u.end":
            out(event="end", date=str(msg[1]))
            if got >= want:
                break
    q.close()


if __name__ == "__main__":
    cmd, port = sys.argv[1], int(sys.argv[2])
    if cmd == "publish-pandas":
        publish_pandas(port)
    elif cmd == "publish-polars":
        publish_polars(port)
    elif cmd == "bad-update":
        bad_update(port)
    elif cmd == "subscribe":
        subscribe(port, sys.argv[3], int(sys.argv[4]))
    else:
        raise SystemExit("unknown command " + cmd)
