"""q queries over kdb+ IPC against jtick's RDB/HDB kdb+ port, for system-tests' KdbQueryIT (docs/kdb-ipc.md).

kdb_query.py CLIENT PORT QUERIES_FILE: CLIENT is pykx or kola, QUERIES_FILE holds one q query per line; or CLIENT is
qsql, each line a JSON object of PyKX qsql.select/exec arguments ({"fn": "select", "table": "trade", "columns": {...}}).
Prints one JSON line per query: {"columns": [...], "keys": n, "types": [...], "rows": [[...]]} or {"error": "..."}.
Values: timestamps as epoch ns, dates as YYYY-MM-DD, chars and symbols as strings, nulls as null.
"""
import json
import math
import os
import sys

os.environ.setdefault("PYKX_UNLICENSED", "true")


def clean(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, bytes):
        return v.decode("latin-1")
    return v


def frame(df):
    """A pandas frame (PyKX's conversion: exact for every type here) as q type names and plain columns."""
    types, cols = [], []
    for name in df.columns:
        s, kind = df[name], str(df[name].dtype)
        if kind == "datetime64[ns]":
            types.append("timestamp")
            cols.append([None if v is None or v != v else int(v) for v in s.astype("int64").where(s.notna(), None)])
        elif kind.startswith("datetime64"):
            types.append("date")
            cols.append([None if v is None or v != v else v.date().isoformat() for v in s])
        elif kind.startswith("timedelta64"):
            types.append("timespan")
            cols.append([int(v) for v in s.astype("int64")])
        elif kind == "float64":
            types.append("float")
            cols.append([clean(float(v)) for v in s])
        elif kind in ("int64", "int32", "int16"):
            types.append({"int64": "long", "int32": "int", "int16": "short"}[kind])
            cols.append([int(v) for v in s])
        elif kind == "|S1" or kind == "bytes8":
            types.append("char")
            cols.append([clean(bytes(v)) for v in s])
        elif kind == "bool":
            types.append("boolean")
            cols.append([bool(v) for v in s])
        else:
            types.append("symbol")
            cols.append([str(v) for v in s])
    return list(df.columns), types, cols


def pykx_answer(kx, r):
    if isinstance(r, kx.KeyedTable):
        k, kt, kc = frame(r._keys.pd())
        v, vt, vc = frame(r._values.pd())
        return {"columns": k + v, "keys": len(k), "types": kt + vt, "rows": [list(x) for x in zip(*(kc + vc))]}
    if isinstance(r, kx.Table):
        c, t, cols = frame(r.pd())
        return {"columns": c, "keys": 0, "types": t, "rows": [list(x) for x in zip(*cols)]}
    if isinstance(r, kx.Atom):
        return {"atom": clean(r.py()), "type": type(r).__name__}
    return {"vector": type(r).__name__, "values": [clean(x) for x in r.py()]}


def run_pykx(port, queries):
    import pykx as kx
    with kx.SyncQConnection("127.0.0.1", port, no_ctx=True) as q:
        for text in queries:
            try:
                print(json.dumps(pykx_answer(kx, q(text))), flush=True)
            except kx.QError as e:
                print(json.dumps({"error": str(e)}), flush=True)


def run_qsql(port, calls):
    """PyKX's qsql.select/qsql.exec (functional selects): each line a JSON object of the call's arguments."""
    import pykx as kx
    with kx.SyncQConnection("127.0.0.1", port, no_ctx=True) as q:
        for line in calls:
            call = json.loads(line)
            fn = getattr(q.qsql, call.pop("fn"))
            try:
                print(json.dumps(pykx_answer(kx, fn(call.pop("table"), **call))), flush=True)
            except kx.QError as e:
                print(json.dumps({"error": str(e)}), flush=True)


def run_kola(port, queries):
    import kola
    import polars as pl
    q = kola.Q("127.0.0.1", port)
    q.connect()
    for text in queries:
        try:
            df = q.sync(text)
        except Exception as e:  # kola raises its QKolaError for a q error
            print(json.dumps({"error": str(e)}), flush=True)
            continue
        if not isinstance(df, pl.DataFrame):
            print(json.dumps({"atom": clean(df) if not hasattr(df, "to_list") else df.to_list()}), flush=True)
            continue
        types, cols = [], []
        for name, dtype in zip(df.columns, df.dtypes):
            s = df[name]
            if dtype == pl.Datetime("ns"):
                types.append("timestamp")
                cols.append(s.cast(pl.Int64).to_list())
            elif dtype == pl.Date:
                types.append("date")
                cols.append([None if d is None else d.isoformat() for d in s.to_list()])
            elif dtype == pl.Float64:
                types.append("float")
                cols.append([clean(x) for x in s.to_list()])
            elif dtype == pl.Int64:
                types.append("long")
                cols.append(s.to_list())
            elif dtype == pl.Categorical or dtype == pl.Enum:
                types.append("symbol")
                cols.append([str(x) for x in s.to_list()])
            else:
                types.append(str(dtype))
                cols.append([clean(x) for x in s.to_list()])
        print(json.dumps({"columns": df.columns, "types": types, "rows": [list(r) for r in zip(*cols)]}), flush=True)
    q.disconnect()


def main():
    client, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path) as f:
        queries = [line.rstrip("\n") for line in f if line.strip()]
    {"pykx": run_pykx, "kola": run_kola, "qsql": run_qsql}[client](port, queries)


if __name__ == "__main__":
    main()
