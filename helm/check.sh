#!/usr/bin/env bash
# Checks the Helm chart and the Grafana dashboards without a cluster:
#   helm lint; helm template of every values combination the chart documents (COMBOS below, named in
#   helm/jtick/values.yaml) and of those it must refuse; what each rendering must hold (the API token
#   from a Secret, end of day sent to the HDB, probes, resources, PDBs, anti-affinity, non-root, the RDB's
#   and HDB's PostgreSQL ports on their Services and off loopback; in TP
#   cluster mode the StatefulSet of members, their ids, names and ports, the majority PDB, anti-affinity,
#   /dev/shm, and every member's address given to the RDBs and feeds);
#   every rendered manifest validated against the Kubernetes schemas (kubernetes-validate from PyPI,
#   strict); every image the chart names is one `./jtick images` builds; dashboards parse as JSON and
#   query only metrics jtick exports (docs/metrics.md); the Prometheus scrape config parses.
# Exit status: 0 ok, 1 a check failed, 3 a tool is absent and could not be installed (helm, or
# kubernetes-validate).
# helm: the CLI from PATH, else ./.tools/helm, else `go install` (Go >= 1.22), else Helm's library
# through helm-java (helm/target/jtick-helm.jar, built with ./mvnw: needs Java only).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
CHART=helm/jtick
TOOLS="$ROOT/.tools"
HELM_VERSION=v3.16.4   # pinned: resolves through proxy.golang.org and builds with Go >= 1.22
KUBE_VERSION=1.30.0    # Kubernetes schema version the manifests are validated against
KV_VERSION=1.37.0      # kubernetes-validate (PyPI), which carries the schemas: nothing to download at check time
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

fail() { echo "check.sh: FAIL: $*" >&2; exit 1; }
info() { echo "check.sh: $*"; }

# The values combinations the chart documents: name|--set list (comma-separated; empty = defaults).
COMBOS=(
    "defaults|"
    "monitored|serviceMonitor.enabled=true,image.registry=registry.example:5000/,image.tag=0.1.0-SNAPSHOT,rdb.replicas=3"
    "network-policy|networkPolicy.enabled=true,networkPolicy.tickFrom[0].namespaceSelector.matchLabels.team=feeds"
    "own-secret|api.existingSecret=jtick-token,api.protectReads=true"
    "given-token|api.token=0123456789abcdef0123456789abcdef"
    "hard-anti-affinity|rdb.podAntiAffinity=hard,rdb.replicas=2,rdb.eodScratch.sizeLimit=50Gi"
    "drains-allowed|tp.podDisruptionBudget.maxUnavailable=1,hdb.podDisruptionBudget.enabled=false,dashboards.enabled=false"
    "hdb-only|tp.enabled=false,rdb.enabled=false,feed.enabled=false"
    "tp-cluster|tp.cluster.enabled=true"
    "cold-tier|hdb.objectStore.enabled=true,hdb.objectStore.endpoint=http://minio.storage:9000,hdb.objectStore.bucket=ticks,hdb.objectStore.accessKey=AKIAEXAMPLE,hdb.objectStore.secretKey=example-secret-key"
    "cold-tier-own-secret|hdb.objectStore.enabled=true,hdb.objectStore.bucket=ticks,hdb.objectStore.existingSecret=ticks-s3"
    "tp-cluster-5|tp.cluster.enabled=true,tp.cluster.replicas=5,tp.cluster.podAntiAffinity=soft,tp.cluster.topologyKey=topology.kubernetes.io/zone,tp.cluster.portBase=20000,networkPolicy.enabled=true,rdb.replicas=2"
    "tls-cert-manager|tls.enabled=true,tls.certManager.enabled=true,tls.certManager.issuerRef.name=jtick-ca"
    "tls-own-secret|tls.enabled=true,tls.existingSecret=jtick-tls,tls.clientAuth=need,tls.mode=optional"
    "tls-client-subjects|tls.enabled=true,tls.existingSecret=jtick-tls,tls.clientSubjects=CN=research-notebook -> read"
    "tls-cluster|tls.enabled=true,tls.certManager.enabled=true,tls.certManager.issuerRef.name=jtick-ca,tls.certManager.issuerRef.kind=ClusterIssuer,tp.cluster.enabled=true"
)
# Combinations the chart must refuse: name|--set list|the message it must give.
REFUSED=(
    "rdb-without-hdb|hdb.enabled=false|rdb.enabled needs hdb.enabled"
    "cold-tier-without-bucket|hdb.objectStore.enabled=true|hdb.objectStore.bucket is required with hdb.objectStore.enabled"
    "bad-anti-affinity|rdb.podAntiAffinity=sometimes|rdb.podAntiAffinity must be soft, hard or none"
    "even-tp-cluster|tp.cluster.enabled=true,tp.cluster.replicas=4|tp.cluster.replicas must be odd and at least 3"
    "one-node-tp-cluster|tp.cluster.enabled=true,tp.cluster.replicas=1|tp.cluster.replicas must be odd and at least 3"
    "bad-tp-anti-affinity|tp.cluster.enabled=true,tp.cluster.podAntiAffinity=sometimes|tp.cluster.podAntiAffinity must be soft, hard or none"
    "tls-without-certificate|tls.enabled=true|tls.enabled needs the certificate"
    "tls-without-issuer|tls.enabled=true,tls.certManager.enabled=true|tls.certManager.enabled needs tls.certManager.issuerRef.name"
    "tls-subjects-without-client-auth|tls.enabled=true,tls.existingSecret=jtick-tls,tls.clientAuth=none,tls.clientSubjects=CN=x -> read|tls.clientSubjects needs tls.clientAuth want or need"
    "tls-bad-mode|tls.enabled=true,tls.existingSecret=jtick-tls,tls.mode=sometimes|tls.mode must be required or optional"
)

# --- helm ------------------------------------------------------------------------------------
HELM=()
if command -v helm > /dev/null; then
    HELM=(helm)
elif [[ -x "$TOOLS/helm" ]]; then
    HELM=("$TOOLS/helm")
elif command -v go > /dev/null && go version | grep -qE 'go1\.(2[2-9]|[3-9][0-9])'; then
    info "installing helm $HELM_VERSION with go install into .tools/ (takes a few minutes the first time)"
    mkdir -p "$TOOLS"
    if GOBIN="$TOOLS" GOFLAGS=-buildvcs=false go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"; then
        HELM=("$TOOLS/helm")
    fi
fi
if [[ ${#HELM[@]} -eq 0 ]]; then
    JAR="$ROOT/helm/target/jtick-helm.jar"
    if [[ ! -f "$JAR" ]] || [[ -n "$(find "$ROOT/helm/src" "$ROOT/helm/pom.xml" -newer "$JAR" -type f -print -quit)" ]]; then
        info "no helm CLI: building helm/target/jtick-helm.jar (Helm's library through helm-java)"
        ./mvnw -B -q -DskipTests package -pl helm < /dev/null || true
    fi
    if [[ -f "$JAR" ]] && command -v java > /dev/null; then
        HELM=(java -jar "$JAR")
    fi
fi
if [[ ${#HELM[@]} -eq 0 ]]; then
    echo "check.sh: no helm: no CLI, no Go >= 1.22, and helm/target/jtick-helm.jar could not be built" >&2
    exit 3
fi
info "helm: ${HELM[*]} ($("${HELM[@]}" version --short 2> /dev/null || echo unknown))"

# --- lint and render -------------------------------------------------------------------------
"${HELM[@]}" lint --strict "$CHART" || fail "helm lint --strict $CHART"
if [[ "${HELM[0]}" != java ]]; then   # helm-java's lint takes no values
    "${HELM[@]}" lint --strict "$CHART" --set serviceMonitor.enabled=true || fail "helm lint $CHART --set serviceMonitor.enabled=true"
    "${HELM[@]}" lint --strict "$CHART" --set tp.cluster.enabled=true || fail "helm lint $CHART --set tp.cluster.enabled=true"
fi
render() { # name sets: $OUT/<name>.yaml, errors in $OUT/<name>.err
    # the namespace given: helm-java leaves it empty otherwise (the CLI says "default"), and the members' names hold it
    local args=(template jtick "$CHART" --namespace default)
    [[ -z "$2" ]] || args+=(--set "$2")
    "${HELM[@]}" "${args[@]}" > "$OUT/$1.yaml" 2> "$OUT/$1.err"
}
for c in "${COMBOS[@]}"; do
    name="${c%%|*}"
    render "$name" "${c#*|}" || { cat "$OUT/$name.err" >&2; fail "helm template ($name: ${c#*|})"; }
done
for r in "${REFUSED[@]}"; do
    IFS='|' read -r name sets message <<< "$r"
    if render "$name" "$sets"; then
        fail "helm template accepted $sets ($name); it must refuse it"
    fi
    grep -qF "$message" "$OUT/$name.err" || { cat "$OUT/$name.err" >&2; fail "$name: expected the message: $message"; }
    rm -f "$OUT/$name.yaml"
done
for kind in StatefulSet Deployment Service ConfigMap Secret PodDisruptionBudget; do
    grep -q "^kind: $kind\$" "$OUT/defaults.yaml" || fail "rendered chart has no $kind"
done
grep -q '^kind: ServiceMonitor$' "$OUT/defaults.yaml" && fail "ServiceMonitor rendered although serviceMonitor.enabled=false"
grep -q '^kind: ServiceMonitor$' "$OUT/monitored.yaml" || fail "no ServiceMonitor with serviceMonitor.enabled=true"
grep -q '^kind: NetworkPolicy$' "$OUT/network-policy.yaml" || fail "no NetworkPolicy with networkPolicy.enabled=true"
DASHBOARDS=("$CHART"/dashboards/*.json)
# the cluster dashboard only with tp.cluster.enabled
[[ "$(grep -c 'grafana_dashboard: "1"' "$OUT/tp-cluster.yaml")" -eq "${#DASHBOARDS[@]}" ]] \
    || fail "expected one ConfigMap labelled grafana_dashboard per dashboard (tp-cluster)"
[[ "$(grep -c 'grafana_dashboard: "1"' "$OUT/defaults.yaml")" -eq "$((${#DASHBOARDS[@]} - 1))" ]] \
    || fail "expected one ConfigMap labelled grafana_dashboard per dashboard but the cluster's (defaults)"
grep -q '^  name: jtick-dashboard-cluster$' "$OUT/defaults.yaml" && fail "the cluster dashboard rendered without tp.cluster.enabled"
info "helm lint and template: ok (${#COMBOS[@]} combinations rendered, ${#REFUSED[@]} refused as they must be)"

# --- dashboards ------------------------------------------------------------------------------
for f in "$CHART"/dashboards/*.json; do
    python3 -m json.tool "$f" > /dev/null || fail "$f is not valid JSON"
done
python3 - "$CHART"/dashboards/*.json << 'EOF' || fail "dashboards use metrics jtick does not export"
import json, re, sys

# The exported names (docs/metrics.md).
LATENCIES = ["tick_tp_log", "tick_tp_pub", "tick_tp_upd", "tick_tp_flush", "tick_tp_timer", "tick_rdb_recv", "tick_rdb_upd",
             "tick_rdb_eod_write", "tick_query", "tick_tp_cluster_commit"]
KNOWN = {f"{n}{s}" for n in LATENCIES for s in ("_seconds_bucket", "_seconds_count", "_seconds_sum")}
KNOWN |= {"tick_tp_rows_total", "tick_tp_updates_total", "tick_tp_bytes_total", "tick_tp_errors_total",
          "tick_tp_subscribers_disconnected_total", "tick_tp_subscriber_journal_switches_total", "tick_rdb_rows_total",
          "tick_rdb_updates_total",
          "tick_feed_rows_total", "tick_tp_sequence", "tick_tp_journal_sequence", "tick_tp_subscribers",
          "tick_tp_subscriber_backlog_bytes", "tick_rdb_last_sequence", "tick_query_rows_total", "tick_query_scanned_total",
          "tick_query_errors_total", "tick_query_rejected_total", "tick_hdb_partitions"}
# the replicated tickerplant's (tp.cluster.enabled; issue 27's metrics, docs/ha.md)
KNOWN |= {"tick_tp_cluster_elections_total", "tick_tp_cluster_leader_changes_total", "tick_tp_cluster_role",
          "tick_tp_cluster_commit_position", "tick_tp_cluster_lag_bytes"}
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

# --- Kubernetes schemas, and what the renderings must hold ------------------------------------
KV="$(command -v kubernetes-validate || true)"
if [[ -x "$TOOLS/venv/bin/kubernetes-validate" ]]; then
    KV="$TOOLS/venv/bin/kubernetes-validate"
fi
if [[ -z "$KV" ]]; then
    info "installing kubernetes-validate $KV_VERSION from PyPI into .tools/venv"
    if python3 -m venv "$TOOLS/venv" > /dev/null 2>&1 \
        && "$TOOLS/venv/bin/pip" install -q "kubernetes-validate==$KV_VERSION" > /dev/null 2>&1; then
        KV="$TOOLS/venv/bin/kubernetes-validate"
    fi
fi
if [[ -z "$KV" ]]; then
    echo "check.sh: kubernetes-validate could not be installed from PyPI: the manifests were not validated" >&2
    exit 3
fi
PY=python3
[[ -x "$(dirname "$KV")/python" ]] && PY="$(dirname "$KV")/python"   # kubernetes-validate's venv has PyYAML
"$PY" -c 'import yaml' 2> /dev/null || fail "no PyYAML for $PY"
"$PY" - "$OUT" "$CHART/values.yaml" "${COMBOS[@]}" << 'PYEOF' || fail "the rendered manifests miss what they must hold"
import base64, os, sys, yaml

out, defaults, combos = sys.argv[1], yaml.safe_load(open(sys.argv[2])), sys.argv[3:]
bad = []

def service(url):
    return ("Service", url.removeprefix("https://").removeprefix("http://").split(":")[0])

# cert-manager's Certificate (cert-manager.io/v1) is a CRD kubernetes-validate has no schema for: its spec is checked
# here against the fields of cert-manager's v1 API and for what jtick needs of it
CERT_SPEC = {"secretName", "duration", "renewBefore", "privateKey", "usages", "dnsNames", "ipAddresses", "issuerRef",
             "commonName", "subject", "secretTemplate", "isCA", "uris", "emailAddresses", "keystores", "revisionHistoryLimit"}
CERT_USAGES = {"signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment",
               "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing",
               "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
               "microsoft sgc", "netscape sgc"}

def tls_checks(name, sets, docs, by):
    errs = []
    enabled = value(sets, "tls.enabled") == "true"
    certs = [d for d in docs if d["kind"] == "Certificate"]
    secret = value(sets, "tls.existingSecret") or None
    if enabled and value(sets, "tls.certManager.enabled") == "true":
        if len(certs) != 1:
            errs.append(f"{name}: tls with cert-manager renders {len(certs)} Certificates, not 1")
        for c in certs:
            spec = c.get("spec", {})
            if c.get("apiVersion") != "cert-manager.io/v1" or set(spec) - CERT_SPEC or not spec.get("secretName") \
                    or not spec.get("issuerRef", {}).get("name") or set(spec.get("usages", [])) - CERT_USAGES:
                errs.append(f"{name}: Certificate {c['metadata']['name']} is not a valid cert-manager.io/v1 Certificate")
            if spec.get("privateKey", {}).get("encoding") != "PKCS8" or not {"server auth", "client auth"} <= set(spec.get("usages", [])):
                errs.append(f"{name}: the Certificate needs a PKCS#8 key and server and client auth usages")
            names = set(spec.get("dnsNames", []))
            for d in docs:
                if d["kind"] == "Service" and not d["metadata"]["name"].endswith("-headless") and d["metadata"]["name"] not in names:
                    errs.append(f"{name}: Service {d['metadata']['name']} is not a name of the Certificate")
            secret = spec.get("secretName")
    elif certs:
        errs.append(f"{name}: a Certificate rendered without tls.certManager.enabled")
    for d in docs:
        if d["kind"] not in ("Deployment", "StatefulSet"):
            continue
        pod = d["spec"]["template"]["spec"]
        vols = {v["name"]: v for v in pod.get("volumes", [])}
        for c in pod["containers"]:
            env = {e["name"]: e.get("value") for e in c.get("env", [])}
            where = f"{name}: {d['kind']} {d['metadata']['name']}"
            if not enabled:
                if any(k.startswith("TICK_TLS_") for k in env) or "tls" in vols:
                    errs.append(f"{where}: TLS settings without tls.enabled")
                continue
            if env.get("TICK_TLS_MODE") != value(sets, "tls.mode") or env.get("TICK_TLS_CERTIFICATE") != "/etc/jtick/tls/tls.crt" \
                    or env.get("TICK_TLS_PRIVATE_KEY") != "/etc/jtick/tls/tls.key" or env.get("TICK_TLS_TRUST") != "/etc/jtick/tls/ca.crt":
                errs.append(f"{where}: TICK_TLS_* do not name the mounted certificate")
            if not any(m["name"] == "tls" and m["mountPath"] == "/etc/jtick/tls" for m in c.get("volumeMounts", [])) \
                    or vols.get("tls", {}).get("secret", {}).get("secretName") != secret:
                errs.append(f"{where}: the TLS Secret {secret} is not mounted at /etc/jtick/tls")
            subjects = value(sets, "tls.clientSubjects")
            maps = {d2["metadata"]["name"]: d2 for d2 in docs if d2["kind"] == "ConfigMap"}
            if subjects:
                # the client subjects' file: a rendered ConfigMap holding the lines, mounted where TICK_TLS_CLIENT_SUBJECTS points
                cm = maps.get(vols.get("client-subjects", {}).get("configMap", {}).get("name"))
                if env.get("TICK_TLS_CLIENT_SUBJECTS") != "/etc/jtick/client-subjects/subjects" \
                        or not any(m["name"] == "client-subjects" and m["mountPath"] == "/etc/jtick/client-subjects"
                                   for m in c.get("volumeMounts", [])) \
                        or cm is None or cm.get("data", {}).get("subjects", "").strip() != subjects:
                    errs.append(f"{where}: tls.clientSubjects is not the mounted file TICK_TLS_CLIENT_SUBJECTS names")
            elif "TICK_TLS_CLIENT_SUBJECTS" in env or "client-subjects" in vols:
                errs.append(f"{where}: a client subjects file without tls.clientSubjects")
            for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                if c.get(probe, {}).get("httpGet", {}).get("scheme") != "HTTPS":
                    errs.append(f"{where}: {probe} is not HTTPS")
            for k, v in env.items():
                if v and v.startswith("http://"):
                    errs.append(f"{where}: {k} calls {v} in clear")
    return errs

def value(sets, key):
    """A value as the combination renders it: its --set, else values.yaml's (as a string)."""
    for kv in filter(None, sets.split(",")):
        k, v = kv.split("=", 1)
        if k == key:
            return v
    v = defaults
    for part in key.split("."):
        v = v[part]
    return str(v).lower() if isinstance(v, bool) else str(v)

def selects(selector, labels):
    """A PDB's spec, an affinity term or a label selector that selects pods with these labels."""
    sel = selector.get("selector", selector.get("labelSelector", selector)).get("matchLabels", {})
    return bool(sel) and all(labels.get(k) == v for k, v in sel.items())

def tp_cluster(name, sets, docs, by):
    """What the TP cluster (tp.cluster.enabled) must be: the members, their ids, names, ports and volumes; a PDB
    keeping a majority; anti-affinity; every member's address in the RDBs and feeds; the cluster dashboard."""
    n = int(value(sets, "tp.cluster.replicas"))
    tick, kdb, base = value(sets, "tp.tickPort"), value(sets, "tp.kdbPort"), int(value(sets, "tp.cluster.portBase"))
    sts = by.get(("StatefulSet", "jtick-tp"))
    if sts is None:
        return [f"{name}: no StatefulSet jtick-tp"]
    where, errs = f"{name}: StatefulSet jtick-tp", []
    spec, pod = sts["spec"], sts["spec"]["template"]["spec"]
    labels = spec["template"]["metadata"]["labels"]
    headless = by.get(("Service", spec["serviceName"]), {}).get("spec", {})
    if spec.get("replicas") != n:
        errs.append(f"{where}: replicas {spec.get('replicas')}, not tp.cluster.replicas {n}")
    if spec.get("podManagementPolicy") != "Parallel":
        errs.append(f"{where}: members must start together (podManagementPolicy: Parallel): one waits for a majority")
    if headless.get("clusterIP") != "None" or not headless.get("publishNotReadyAddresses"):
        errs.append(f"{where}: {spec['serviceName']} must be headless and publish members before they are ready")
    hosts = [f"jtick-tp-{i}.{spec['serviceName']}.default.svc.{value(sets, 'clusterDomain')}" for i in range(n)]
    c = next(c for c in pod["containers"] if c["name"] == "tp-service")
    env = {e["name"]: e for e in c.get("env", [])}
    if env.get("TICK_TP_CLUSTER_ENABLED", {}).get("value") != "true":
        errs.append(f"{where}: TICK_TP_CLUSTER_ENABLED is not true")
    if env.get("TICK_TP_CLUSTER_MEMBER_ID", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") \
            != "metadata.labels['apps.kubernetes.io/pod-index']":
        errs.append(f"{where}: TICK_TP_CLUSTER_MEMBER_ID is not the pod's ordinal (label apps.kubernetes.io/pod-index)")
    members = ",".join(f"{i}={h}:{tick}:{kdb}:{base}" for i, h in enumerate(hosts))
    if env.get("TICK_TP_CLUSTER_MEMBERS", {}).get("value") != members:
        errs.append(f"{where}: TICK_TP_CLUSTER_MEMBERS is {env.get('TICK_TP_CLUSTER_MEMBERS', {}).get('value')}, not {members}")
    udp = sorted(p["containerPort"] for p in c.get("ports", []) if p.get("protocol") == "UDP")
    if udp != list(range(base, base + 5)):
        errs.append(f"{where}: UDP container ports {udp}, not {base}..{base + 4}")
    mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
    claims = [t["metadata"]["name"] for t in spec.get("volumeClaimTemplates", [])]
    for key in ("TICK_TP_JOURNAL_DIR", "TICK_TP_CLUSTER_DIR"):
        path = env.get(key, {}).get("value", "")
        if not any(v in claims and path.startswith(mounts.get(v, "?") + "/") for v in mounts):
            errs.append(f"{where}: {key} {path} is not on the member's own volume (volumeClaimTemplates {claims})")
    shm = next((v for v in pod.get("volumes", []) if mounts.get(v["name"]) == "/dev/shm"), None)
    if not shm or shm.get("emptyDir", {}).get("medium") != "Memory" or not shm["emptyDir"].get("sizeLimit"):
        errs.append(f"{where}: /dev/shm is not a memory emptyDir with a sizeLimit (Aeron's driver files)")
    anti = pod.get("affinity", {}).get("podAntiAffinity", {})
    mode, key = value(sets, "tp.cluster.podAntiAffinity"), value(sets, "tp.cluster.topologyKey")
    terms = {"hard": anti.get("requiredDuringSchedulingIgnoredDuringExecution", []),
             "soft": [t.get("podAffinityTerm", {}) for t in anti.get("preferredDuringSchedulingIgnoredDuringExecution", [])]}
    if mode != "none" and not any(t.get("topologyKey") == key and selects(t, labels) for t in terms[mode]):
        errs.append(f"{where}: no {mode} anti-affinity between members on {key}")
    pdbs = [d for d in docs if d["kind"] == "PodDisruptionBudget" and selects(d["spec"], labels)]
    if [p["spec"].get("minAvailable") for p in pdbs] != [n // 2 + 1] or any("maxUnavailable" in p["spec"] for p in pdbs):
        errs.append(f"{name}: the TP's PodDisruptionBudget must be minAvailable {n // 2 + 1} (a majority of {n}): "
                    f"{[p['spec'] for p in pdbs]}")
    addresses = ",".join(f"{h}:{tick}" for h in hosts)
    for d in docs:
        for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            prefix = {"rdb-service": "TICK_RDB", "feed-sim": "TICK_FEED"}.get(c["name"])
            env = {e["name"]: e.get("value") for e in c.get("env", [])}
            if prefix and env.get(f"{prefix}_TP_ADDRESSES") != addresses:
                errs.append(f"{name}: {c['name']} {prefix}_TP_ADDRESSES is {env.get(prefix + '_TP_ADDRESSES')}, not every member {addresses}")
            if prefix and f"{prefix}_TP_HOST" in env:
                errs.append(f"{name}: {c['name']} still has {prefix}_TP_HOST beside {prefix}_TP_ADDRESSES")
    if value(sets, "networkPolicy.enabled") == "true":
        rules = by.get(("NetworkPolicy", "jtick-tp"), {}).get("spec", {}).get("ingress", [])
        if not any(p.get("protocol") == "UDP" and p.get("port") == base and p.get("endPort") == base + 4
                   and any(selects(f.get("podSelector", {}), labels) for f in r.get("from", []))
                   for r in rules for p in r.get("ports", [])):
            errs.append(f"{name}: the TP NetworkPolicy does not admit the members' UDP ports {base}..{base + 4} from the members")
    if ("ConfigMap", "jtick-dashboard-cluster") not in by and value(sets, "dashboards.enabled") == "true":
        errs.append(f"{name}: no cluster dashboard")
    return errs

def tp_single(name, docs, by):
    """Single-node mode: one TP replica, none of the cluster's settings, the RDBs and feeds on the tp Service."""
    errs = []
    sts = by.get(("StatefulSet", "jtick-tp"))
    if sts is not None:
        if sts["spec"]["replicas"] != 1 or "podManagementPolicy" in sts["spec"]:
            errs.append(f"{name}: single-node TP is not one replica ordered as before")
        for c in sts["spec"]["template"]["spec"]["containers"]:
            if any(e["name"].startswith("TICK_TP_CLUSTER_") for e in c.get("env", [])):
                errs.append(f"{name}: single-node TP has TICK_TP_CLUSTER_* settings")
    for d in docs:
        for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            if any(e["name"].endswith("_TP_ADDRESSES") for e in c.get("env", [])):
                errs.append(f"{name}: {c['name']} has a list of TP addresses without tp.cluster.enabled")
    if ("ConfigMap", "jtick-dashboard-cluster") in by:
        errs.append(f"{name}: the cluster dashboard rendered without tp.cluster.enabled")
    return errs

for combo in combos:
    name, sets = combo.split("|", 1)
    docs = [d for d in yaml.safe_load_all(open(os.path.join(out, name + ".yaml"))) if d]
    os.makedirs(os.path.join(out, "builtin", name), exist_ok=True)
    for n, d in enumerate(docs):
        if d["kind"] not in ("ServiceMonitor", "Certificate"):   # CRDs: kubernetes-validate has no schema for them
            with open(os.path.join(out, "builtin", name, f"{n:03d}.yaml"), "w") as f:
                yaml.safe_dump(d, f)
    by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    secrets = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Secret"}
    pdbs = [d for d in docs if d["kind"] == "PodDisruptionBudget"]
    for d in docs:
        if d["kind"] not in ("Deployment", "StatefulSet"):
            continue
        where = f"{name}: {d['kind']} {d['metadata']['name']}"
        pod = d["spec"]["template"]["spec"]
        labels = d["spec"]["template"]["metadata"]["labels"]
        if not pod.get("securityContext", {}).get("runAsNonRoot"):
            bad.append(f"{where}: pod not runAsNonRoot")
        for c in pod["containers"]:
            env = {e["name"]: e for e in c.get("env", [])}
            ref = env.get("TICK_API_TOKEN", {}).get("valueFrom", {}).get("secretKeyRef")
            if not ref or ref.get("key") != "token":
                bad.append(f"{where}: TICK_API_TOKEN is not a Secret's key token")
            elif ref["name"] not in secrets and ref["name"] != "jtick-token":   # jtick-token: the own-secret combination's
                bad.append(f"{where}: TICK_API_TOKEN names Secret {ref['name']}, which is not rendered")
            if env.get("SERVER_ADDRESS", {}).get("value") != "0.0.0.0":
                bad.append(f"{where}: SERVER_ADDRESS is not 0.0.0.0")
            for probe, path in (("livenessProbe", "/actuator/health/liveness"), ("readinessProbe", "/actuator/health/readiness")):
                if c.get(probe, {}).get("httpGet", {}).get("path") != path:
                    bad.append(f"{where}: {probe} is not on {path}")
            res = c.get("resources", {})
            if not (res.get("requests", {}).get("cpu") and res.get("requests", {}).get("memory") and res.get("limits", {}).get("memory")):
                bad.append(f"{where}: resources need cpu and memory requests and a memory limit")
            if not c.get("securityContext", {}).get("readOnlyRootFilesystem"):
                bad.append(f"{where}: root file system not read-only")
            if c["name"] == "rdb-service":
                if env.get("TICK_RDB_HDB_TRANSFER", {}).get("value") != "upload" or "TICK_RDB_HDB_ROOT" not in env:
                    bad.append(f"{where}: the end of day is not sent to the HDB (TICK_RDB_HDB_TRANSFER=upload, TICK_RDB_HDB_ROOT)")
                if service(env.get("TICK_RDB_HDB_URL", {}).get("value", "")) not in by:
                    bad.append(f"{where}: TICK_RDB_HDB_URL is no rendered Service")
                if "podAntiAffinity" not in pod.get("affinity", {}):
                    bad.append(f"{where}: no anti-affinity between RDB replicas")
            if c["name"] in ("rdb-service", "hdb-service"):
                # SQL over the PostgreSQL wire protocol: a named container port, bound off loopback, on the component's Service
                # and q over kdb+ IPC likewise
                svc = "rdb" if c["name"] == "rdb-service" else "hdb"
                for port_name, what in (("pg", "PostgreSQL"), ("kdb", "kdb+ IPC")):
                    pg = next((p for p in c.get("ports", []) if p.get("name") == port_name), None)
                    key = f"TICK_{svc.upper()}_{port_name.upper()}"
                    if pg is None or env.get(key + "_PORT", {}).get("value") != str(pg["containerPort"]) \
                            or env.get(key + "_HOST", {}).get("value") != "0.0.0.0":
                        bad.append(f"{where}: no {what} port (container port {port_name}, {key}_PORT, {key}_HOST=0.0.0.0)")
                    elif not any(d2["kind"] == "Service" and d2["metadata"]["name"].endswith("-" + svc)
                                 and any(p.get("targetPort") == port_name for p in d2["spec"]["ports"]) for d2 in docs):
                        bad.append(f"{where}: its Service does not expose the {what} port")
            if c["name"] == "hdb-service" and value(sets, "hdb.objectStore.enabled") == "true":
                # the cold tier: its bucket, and credentials from a Secret (rendered, or the one named) as the SDK's variables
                if env.get("TICK_HDB_OBJECT_STORE_ENABLED", {}).get("value") != "true" \
                        or env.get("TICK_HDB_OBJECT_STORE_BUCKET", {}).get("value") != value(sets, "hdb.objectStore.bucket"):
                    bad.append(f"{where}: the object store is not configured (TICK_HDB_OBJECT_STORE_ENABLED, _BUCKET)")
                for var, key in (("READ_TIMEOUT", "readTimeout"), ("PART_SIZE", "partSize"), ("CACHE_SIZE", "cacheSize"),
                                 ("DISK_CACHE_SIZE", "diskCacheSize")):
                    if env.get("TICK_HDB_OBJECT_STORE_" + var, {}).get("value") != value(sets, "hdb.objectStore." + key):
                        bad.append(f"{where}: TICK_HDB_OBJECT_STORE_{var} is not hdb.objectStore.{key}")
                for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
                    ref = env.get(var, {}).get("valueFrom", {}).get("secretKeyRef")
                    own = value(sets, "hdb.objectStore.existingSecret")
                    if not ref or ref.get("key") != var or (ref["name"] not in secrets and ref["name"] != own):
                        bad.append(f"{where}: {var} is not a key of a rendered or named Secret")
                    elif ref["name"] in secrets and var not in secrets[ref["name"]].get("data", {}):
                        bad.append(f"{where}: Secret {ref['name']} has no {var}")
            if c["name"] == "hdb-service" and any(k[0] == "Deployment" and k[1].endswith("-rdb") for k in by):
                if service(env.get("TICK_HDB_GATEWAY_RDB_URL", {}).get("value", "")) not in by:
                    bad.append(f"{where}: the gateway's TICK_HDB_GATEWAY_RDB_URL is no rendered Service")
        if d["kind"] == "StatefulSet" and name in ("defaults", "tp-cluster"):
            if not any(all(labels.get(k) == v for k, v in p["spec"]["selector"]["matchLabels"].items()) for p in pdbs):
                bad.append(f"{where}: no PodDisruptionBudget selects its pods")
    bad.extend(tls_checks(name, sets, docs, by))
    if value(sets, "tp.enabled") == "true" and value(sets, "tp.cluster.enabled") == "true":
        bad.extend(tp_cluster(name, sets, docs, by))
    else:
        bad.extend(tp_single(name, docs, by))
    for s in secrets.values():
        if "token" in s["data"] and len(base64.b64decode(s["data"]["token"])) < 32:
            bad.append(f"{name}: Secret {s['metadata']['name']} holds a token shorter than 32 characters")
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
for name in "${COMBOS[@]%%|*}"; do
    "$KV" --strict --quiet -k "$KUBE_VERSION" "$OUT/builtin/$name"/*.yaml || fail "$name: manifests do not validate (kubernetes-validate)"
done
info "kubernetes-validate $KV_VERSION ($KUBE_VERSION, strict): $(find "$OUT/builtin" -name '*.yaml' | wc -l) manifests of ${#COMBOS[@]} combinations ok; each holds what it must"

# --- images ----------------------------------------------------------------------------------
# every image a rendering names, less that combination's image.registry, is one ./jtick images builds
mapfile -t BUILT < <(./jtick images --list)
[[ ${#BUILT[@]} -gt 0 ]] || fail "./jtick images --list printed nothing"
for c in "${COMBOS[@]}"; do
    name="${c%%|*}"
    registry="$(tr ',' '\n' <<< "${c#*|}" | sed -n 's/^image\.registry=//p')"
    while read -r image; do
        image="${image#\"}"
        image="${image%\"}"
        [[ -z "$registry" || "$image" == "$registry"* ]] || fail "$name: image $image lacks the registry $registry"
        image="${image#"$registry"}"
        [[ " ${BUILT[*]} " == *" $image "* ]] || fail "$name: the chart names image $image, which ./jtick images does not build (${BUILT[*]})"
    done < <(sed -n 's/^ *image: //p' "$OUT/$name.yaml")
done
info "images: every image the chart names is one ./jtick images builds (${BUILT[*]})"

info "all checks passed"
