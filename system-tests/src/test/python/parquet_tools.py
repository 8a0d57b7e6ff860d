"""Parquet readers and writers other than jtick, for ParquetToolsIT (docs/operations.md "Parquet export and import").

  parquet_tools.py read DIR
      reads DIR/date=*/trade.parquet with pyarrow, polars and DuckDB; prints one JSON line per reader and sym:
      {"reader": ..., "sym": ..., "n": rows, "size": sum(size), "vwap": sum(price*size)/sum(size)}
  parquet_tools.py write DIR PYARROW_DIR DUCKDB_DIR
      writes the same rows, shuffled, as PYARROW_DIR/trade.parquet (pyarrow.parquet.write_table) and
      DUCKDB_DIR/trade.parquet (DuckDB COPY ... TO ... (FORMAT parquet))
"""
import json
import sys

import duckdb
import polars as pl
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq


def emit(reader, sym, n, size, notional):
    print(json.dumps({"reader": reader, "sym": sym, "n": int(n), "size": int(size), "vwap": float(notional) / float(size)}))


def read(folder):
    table = ds.dataset(folder, format="parquet", partitioning="hive").to_table()
    assert str(table.schema.field("time").type) == "timestamp[ns, tz=UTC]", table.schema.field("time").type
    notional = pc.multiply(table["price"], pc.cast(table["size"], "double"))
    grouped = table.append_column("notional", notional).group_by("sym").aggregate(
        [("sym", "count"), ("size", "sum"), ("notional", "sum")])
    for row in grouped.to_pylist():
        emit("pyarrow", row["sym"], row["sym_count"], row["size_sum"], row["notional_sum"])

    frame = pl.scan_parquet(f"{folder}/*/*.parquet").group_by("sym").agg(
        pl.len().alias("n"), pl.col("size").sum().alias("size"), (pl.col("price") * pl.col("size")).sum().alias("notional")).collect()
    for row in frame.iter_rows(named=True):
        emit("polars", row["sym"], row["n"], row["size"], row["notional"])

    con = duckdb.connect()
    for sym, n, size, notional in con.execute(
            f"SELECT sym, count(*), sum(size), sum(price * size) FROM read_parquet('{folder}/*/*.parquet', hive_partitioning = true) "
            "GROUP BY sym").fetchall():
        emit("duckdb", sym, n, size, notional)


def write(folder, pyarrow_dir, duckdb_dir):
    table = ds.dataset(folder, format="parquet", partitioning="hive").to_table(columns=["time", "sym", "price", "size", "cond"])
    shuffled = table.take(pc.sort_indices(pc.random(table.num_rows)))
    pq.write_table(shuffled, f"{pyarrow_dir}/trade.parquet", row_group_size=7000)
    con = duckdb.connect()
    con.execute(f"COPY (SELECT time, sym, price, size, cond FROM read_parquet('{folder}/*/*.parquet') ORDER BY random()) "
                f"TO '{duckdb_dir}/trade.parquet' (FORMAT parquet)")
    print("written")


if __name__ == "__main__":
    if sys.argv[1] == "read":
        read(sys.argv[2])
    else:
        write(sys.argv[2], sys.argv[3], sys.argv[4])
