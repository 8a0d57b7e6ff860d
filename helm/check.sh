#!/usr/bin/env bash
# Checks the Helm chart and the Grafana dashboards without a cluster:
#   helm lint, helm template (defaults and with every optional part on), dashboards parse as JSON,
#   every metric a dashboard queries is one jtick exports (docs/metrics.md), the Prometheus scrape
#   config parses (promtool, when installed), and the rendered manifests validate against the
#   Kubernetes schemas (kubernetes-validate from PyPI, when it installs).
# Exit status: 0 ok, 1 a check failed, 3 the helm CLI is absent and could not be installed.
# The helm CLI comes from PATH, else ./.tools/helm, else `go install` through the Go module proxy.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
CHART=helm/jtick
TOOLS="$ROOT/.tools"
HELM_VERSION=v3.16.4   # pinned: resolves through proxy.golang.org and builds with Go >= 1.22
KUBE_VERSION=1.30.0    # Kubernetes schema version the manifests are validated against
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

fail() { echo "check.sh: FAIL: $*" >&2; exit 1; }
info() { echo "check.sh: $*"; }

# --- helm CLI --------------------------------------------------------------------------------
HELM="$(command -v helm || true)"
if [[ -z "$HELM" && -x "$TOOLS/helm" ]]; then
    HELM="$TOOLS/helm"
fi
if [[ -z "$HELM" ]]; then
    if command -v go > /dev/null; then
        info "installing helm $HELM_VERSION with go install into .tools/ (takes a few minutes the first time)"
        mkdir -p "$TOOLS"
        if GOBIN="$TOOLS" GOFLAGS=-buildvcs=false go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"; then
            HELM="$TOOLS/helm"
        fi
    fi
fi
if [[ -z "$HELM" ]]; then
    echo "check.sh: helm CLI not found and could not be installed (no go toolchain or no module proxy)" >&2
    exit 3
fi
info "helm: $HELM ($("$HELM" version --short 2> /dev/null || echo unknown))"

# --- lint and render -------------------------------------------------------------------------
"$HELM" lint --strict "$CHART" || fail "helm lint $CHART"
"$HELM" lint --strict "$CHART" --set serviceMonitor.enabled=true || fail "helm lint $CHART --set serviceMonitor.enabled=true"
"$HELM" template jtick "$CHART" > "$OUT/default.yaml" || fail "helm template (defaults)"
"$HELM" template jtick "$CHART" --set serviceMonitor.enabled=true --set image.registry=registry.example/ \
    --set rdb.replicas=3 > "$OUT/all.yaml" || fail "helm template (serviceMonitor on)"
for kind in StatefulSet Deployment Service ConfigMap; do
    grep -q "^kind: $kind\$" "$OUT/default.yaml" || fail "rendered chart has no $kind"
done
grep -q '^kind: ServiceMonitor$' "$OUT/default.yaml" && fail "ServiceMonitor rendered although serviceMonitor.enabled=false"
grep -q '^kind: ServiceMonitor$' "$OUT/all.yaml" || fail "no ServiceMonitor with serviceMonitor.enabled=true"
DASHBOARDS=("$CHART"/dashboards/*.json)
[[ "$(grep -c 'grafana_dashboard: "1"' "$OUT/default.yaml")" -eq "${#DASHBOARDS[@]}" ]] \
    || fail "expected one ConfigMap labelled grafana_dashboard per dashboard"
info "helm lint and template: ok"

# --- dashboards ------------------------------------------------------------------------------
for f in "$CHART"/dashboards/*.json; do
    python3 -m json.tool "$f" > /dev/null || fail "$f is not valid JSON"
done
python3 - "$CHART"/dashboards/*.json << 'EOF' || fail "dashboards use metrics jtick does not export"
import json, re, sys

# The exported names (docs/metrics.md).
LATENCIES = ["tick_tp_log", "tick_tp_pub", "tick_tp_upd", "tick_tp_flush", "tick_tp_timer", "tick_rdb_recv", "tick_rdb_upd",
             "tick_rdb_eod_write", "tick_query"]
KNOWN = {f"{n}{s}" for n in LATENCIES for s in ("_seconds_bucket", "_seconds_count", "_seconds_sum")}
KNOWN |= {"tick_tp_rows_total", "tick_tp_updates_total", "tick_tp_bytes_total", "tick_tp_errors_total",
          "tick_tp_subscribers_disconnected_total", "tick_rdb_rows_total", "tick_rdb_updates_total",
          "tick_feed_rows_total", "tick_tp_sequence", "tick_tp_journal_sequence", "tick_tp_subscribers",
          "tick_tp_subscriber_backlog_bytes", "tick_rdb_last_sequence", "tick_query_rows_total", "tick_query_scanned_total",
          "tick_query_errors_total", "tick_query_rejected_total", "tick_hdb_partitions"}
WORDS = {"sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values",
         "group", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
         "offset", "inf", "nan"}

def exprs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "expr" and isinstance(v, str):
                yield v
            elif k == "query" and isinstance(v, str) and v.startswith("label_values("):
                yield v[len("label_values("):].rsplit(",", 1)[0]
            elif k == "query" and isinstance(v, dict) and isinstance(v.get("query"), str) and v["query"].startswith("label_values("):
                yield v["query"][len("label_values("):].rsplit(",", 1)[0]
            else:
                yield from exprs(v)
    elif isinstance(node, list):
        for v in node:
            yield from exprs(v)

def metrics(expr):
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)                         # strings
    e = re.sub(r"\{[^}]*\}", "", e)                                       # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)                                      # range selectors
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", e)  # label lists
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        name = m.group(0)
        rest = e[m.end():].lstrip()
        if rest.startswith("(") or name in WORDS:
            continue
        if e[:m.start()].endswith("$"):                                   # $variables
            continue
        yield name

bad, used, panels = [], set(), 0
for path in sys.argv[1:]:
    board = json.load(open(path))
    for p in board.get("panels", []):
        if p.get("type") != "row":
            panels += 1
            if not p.get("targets"):
                bad.append(f"{path}: panel '{p.get('title')}' has no query")
    for expr in exprs(board):
        for name in metrics(expr):
            used.add(name)
            if name not in KNOWN:
                bad.append(f"{path}: unknown metric {name} in: {expr}")
    ds = [v for v in board.get("templating", {}).get("list", []) if v.get("type") == "datasource"]
    if not any(v.get("name") == "DS_PROMETHEUS" and v.get("query") == "prometheus" for v in ds):
        bad.append(f"{path}: no datasource variable DS_PROMETHEUS (type prometheus)")
    for p in board.get("panels", []):
        uid = (p.get("datasource") or {}).get("uid") if p.get("type") != "row" else "${DS_PROMETHEUS}"
        if uid != "${DS_PROMETHEUS}":
            bad.append(f"{path}: panel '{p.get('title')}' does not use the ${{DS_PROMETHEUS}} datasource")
for b in bad:
    print("  " + b, file=sys.stderr)
if not bad:
    print(f"check.sh: dashboards: {len(sys.argv) - 1} files, {panels} panels, {len(used)} metric names, all known")
sys.exit(1 if bad else 0)
EOF

# --- Prometheus scrape config ----------------------------------------------------------------
if python3 -c 'import yaml' 2> /dev/null; then
    # Debian's promtool lacks Kubernetes discovery: the in-cluster config is parsed, not checked
    python3 -c 'import sys, yaml; c = yaml.safe_load(open(sys.argv[1])); assert c["scrape_configs"][0]["kubernetes_sd_configs"]' \
        helm/prometheus/kubernetes.yml || fail "helm/prometheus/kubernetes.yml"
fi
if command -v promtool > /dev/null; then
    promtool check config helm/prometheus/prometheus.yml || fail "helm/prometheus/prometheus.yml"
else
    if python3 -c 'import yaml' 2> /dev/null; then
        python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' helm/prometheus/prometheus.yml \
            || fail "helm/prometheus/prometheus.yml is not valid YAML"
        info "prometheus.yml parses (promtool absent: apt-get install prometheus for a full check)"
    else
        info "skipping prometheus.yml check (no promtool, no PyYAML)"
    fi
fi

# --- Kubernetes schema validation (optional tool) --------------------------------------------
KV="$(command -v kubernetes-validate || true)"
if [[ -z "$KV" && -x "$TOOLS/venv/bin/kubernetes-validate" ]]; then
    KV="$TOOLS/venv/bin/kubernetes-validate"
fi
if [[ -z "$KV" ]]; then
    if python3 -m venv "$TOOLS/venv" > /dev/null 2>&1 && "$TOOLS/venv/bin/pip" install -q kubernetes-validate > /dev/null 2>&1; then
        KV="$TOOLS/venv/bin/kubernetes-validate"
    fi
fi
if [[ -n "$KV" ]]; then
    # ServiceMonitor is a CRD kubernetes-validate has no schema for: validate the built-in kinds only.
    python3 - "$OUT/all.yaml" "$OUT/builtin" << 'EOF'
import os, sys
docs = [d for d in open(sys.argv[1]).read().split("\n---") if "kind:" in d]
os.makedirs(sys.argv[2], exist_ok=True)
n = 0
for d in docs:
    if "kind: ServiceMonitor" in d:
        continue
    n += 1
    with open(os.path.join(sys.argv[2], f"{n:03d}.yaml"), "w") as f:
        f.write(d.lstrip("-\n") + "\n")
EOF
    "$KV" --strict --quiet -k "$KUBE_VERSION" "$OUT"/builtin/*.yaml || fail "rendered manifests do not validate (kubernetes-validate)"
    info "kubernetes-validate ($KUBE_VERSION, strict): $(find "$OUT/builtin" -name '*.yaml' | wc -l) manifests ok"
else
    info "skipping Kubernetes schema validation: kubernetes-validate could not be installed from PyPI"
fi

info "all checks passed"
