"""PyKX over TLS (kdb+'s :tcps://) against a jtick kdb+ port that requires it: prints `tls <rows>` for a query over
TLS, then `plain refused` or `plain answered` for the same client without TLS. PyKX unlicensed (no_ctx=True);
the CA comes from SSL_CA_CERT_FILE, as for q itself. Usage: kdb_tls.py host port query"""
import os
import sys

os.environ.setdefault("PYKX_UNLICENSED", "true")
import pykx as kx  # noqa: E402

host, port, query = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with kx.SyncQConnection(host, port, tls=True, no_ctx=True, timeout=10.0) as q:
    print("tls", len(q(query)), flush=True)
try:
    with kx.SyncQConnection(host, port, no_ctx=True, timeout=10.0) as q:
        q(query)
        print("plain answered", flush=True)
except Exception as e:  # noqa: BLE001: any refusal will do; say which
    print("plain refused", type(e).__name__, e, flush=True)
