"""Real PostgreSQL clients against jtick's PostgreSQL port, for system-tests' SqlClientsIT (docs/query.md "SQL").

    sql_clients.py PORT STATEMENTS_JSON

STATEMENTS_JSON is a list of {"name", "sql", "params"} (params: a list, or null for none). For each
statement it prints one JSON line per client: psycopg 3 (binary results, server-side parameters),
psycopg 3 (text results) and pandas.read_sql over a psycopg connection, each with the columns and
the rows as plain values: timestamps as epoch microseconds (PostgreSQL's precision), floats,
integers and strings. A statement that fails prints its SQLSTATE and message instead.
"""
import datetime
import json
import sys
import warnings

import pandas as pd
import psycopg

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def plain(v):
    """A value as JSON can carry it exactly."""
    if v is None:
        return None
    if isinstance(v, pd.Timestamp):
        if v is pd.NaT:
            return None
        return int(v.value // 1000)
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        return (v - EPOCH) // datetime.timedelta(microseconds=1)
    if isinstance(v, datetime.date):
        return v.isoformat()
    if hasattr(v, "item"):  # numpy scalars
        v = v.item()
    if isinstance(v, float) and v != v:
        return None
    return v


def emit(**kw):
    print(json.dumps(kw), flush=True)


def main():
    port = sys.argv[1]
    statements = json.loads(sys.argv[2])
    conninfo = f"host=127.0.0.1 port={port} user=jtick dbname=jtick connect_timeout=10"
    with psycopg.connect(conninfo, autocommit=True) as conn:
        for st in statements:
            params = st.get("params")
            for client, binary in (("psycopg-binary", True), ("psycopg-text", False)):
                try:
                    with conn.cursor(binary=binary) as cur:
                        cur.execute(st["sql"], params, prepare=True)
                        cols = [d.name for d in cur.description]
                        rows = [[plain(v) for v in r] for r in cur.fetchall()]
                    emit(name=st["name"], client=client, columns=cols, rows=rows)
                except psycopg.Error as e:
                    emit(name=st["name"], client=client, sqlstate=e.sqlstate, message=str(e).strip())
            try:
                with warnings.catch_warnings():
                    # pandas asks for SQLAlchemy but reads any DB-API connection, as this one
                    warnings.simplefilter("ignore", UserWarning)
                    df = pd.read_sql(st["sql"], conn, params=params)
                rows = [[plain(v) for v in r] for r in df.itertuples(index=False, name=None)]
                emit(name=st["name"], client="pandas", columns=list(df.columns), rows=rows)
            except Exception as e:  # pandas wraps the driver's error in its own DatabaseError
                cause = e.__cause__ if isinstance(e.__cause__, psycopg.Error) else e
                emit(name=st["name"], client="pandas", sqlstate=getattr(cause, "sqlstate", None), message=str(cause).strip())


if __name__ == "__main__":
    main()
