{{/* Chart name, truncated to the 63 characters Kubernetes names allow. */}}
{{- define "jtick.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name: <release>-jtick, or just <release> when it already contains "jtick". */}}
{{- define "jtick.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "jtick.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "jtick.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Name of one component: jtick.component (dict "root" $ "component" "tp") -> <fullname>-tp */}}
{{- define "jtick.component" -}}
{{- printf "%s-%s" (include "jtick.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "jtick.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/part-of: {{ include "jtick.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component (dict "root" $ "component" "tp"). */}}
{{- define "jtick.selectorLabels" -}}
app.kubernetes.io/name: {{ include "jtick.name" .root }}-{{ .component }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Image reference (dict "root" $ "image" .Values.tp.image). */}}
{{- define "jtick.image" -}}
{{- printf "%s%s:%s" .root.Values.image.registry .image.repository (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end -}}

{{/* The Secret holding the API token (key "token"). */}}
{{- define "jtick.apiSecretName" -}}
{{- default (printf "%s-api" (include "jtick.fullname" .)) .Values.api.existingSecret -}}
{{- end -}}

{{/* The Secret holding the TLS certificate (tls.crt, tls.key, ca.crt). */}}
{{- define "jtick.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "jtick.fullname" .)) .Values.tls.existingSecret -}}
{{- end -}}

{{/* http or https: how the pods call each other's REST ports. */}}
{{- define "jtick.scheme" -}}
{{- if .Values.tls.enabled }}https{{ else }}http{{ end -}}
{{- end -}}

{{/* The TLS volume mount of a container (with tls.enabled), and the client subjects' file (with tls.clientSubjects). */}}
{{- define "jtick.tlsMount" -}}
{{- if .Values.tls.enabled }}
- name: tls
  mountPath: /etc/jtick/tls
  readOnly: true
{{- if .Values.tls.clientSubjects }}
- name: client-subjects
  mountPath: /etc/jtick/client-subjects
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/* The TLS volume of a pod (with tls.enabled). */}}
{{- define "jtick.tlsVolume" -}}
{{- if .Values.tls.enabled }}
- name: tls
  secret:
    secretName: {{ include "jtick.tlsSecretName" . }}
    defaultMode: 0440
{{- if .Values.tls.clientSubjects }}
- name: client-subjects
  configMap:
    name: {{ include "jtick.fullname" . }}-client-subjects
{{- end }}
{{- end }}
{{- end -}}

{{/*
The Secret holding the cold tier's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: hdb.objectStore.existingSecret,
the chart's own when keys are given, else none (the SDK's default chain, e.g. a pod role).
*/}}
{{- define "jtick.objectStoreSecretName" -}}
{{- if .Values.hdb.objectStore.existingSecret -}}
{{- .Values.hdb.objectStore.existingSecret -}}
{{- else if .Values.hdb.objectStore.accessKey -}}
{{- printf "%s-object-store" (include "jtick.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
The environment every jtick container gets: extra JVM flags (the images carry jvm.options), bind
address, Spring health probes, the API token from its Secret, TLS from its Secret.
*/}}
{{- define "jtick.commonEnv" -}}
{{- with .Values.jvm.extraFlags -}}
- name: JDK_JAVA_OPTIONS
  value: {{ . | quote }}
{{- end }}
- name: SERVER_ADDRESS
  value: "0.0.0.0"
- name: MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED
  value: "true"
- name: TICK_API_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "jtick.apiSecretName" . }}
      key: token
- name: TICK_API_PROTECT_READS
  value: {{ .Values.api.protectReads | toString | quote }}
{{- if .Values.tls.enabled }}
{{- if not (has .Values.tls.mode (list "required" "optional")) }}
{{- fail "tls.mode must be required or optional" }}
{{- end }}
{{- if not (has .Values.tls.clientAuth (list "none" "want" "need")) }}
{{- fail "tls.clientAuth must be none, want or need" }}
{{- end }}
- name: TICK_TLS_MODE
  value: {{ .Values.tls.mode | quote }}
- name: TICK_TLS_CLIENT_AUTH
  value: {{ .Values.tls.clientAuth | quote }}
- name: TICK_TLS_CERTIFICATE
  value: /etc/jtick/tls/tls.crt
- name: TICK_TLS_PRIVATE_KEY
  value: /etc/jtick/tls/tls.key
- name: TICK_TLS_TRUST
  value: /etc/jtick/tls/ca.crt
{{- if .Values.tls.clientSubjects }}
{{- if eq .Values.tls.clientAuth "none" }}
{{- fail "tls.clientSubjects needs tls.clientAuth want or need" }}
{{- end }}
- name: TICK_TLS_CLIENT_SUBJECTS
  value: /etc/jtick/client-subjects/subjects
{{- end }}
{{- end }}
{{- end -}}

{{/* Pod-level security context and the /tmp every pod needs with a read-only root file system. */}}
{{- define "jtick.podSecurity" -}}
{{- with .Values.podSecurityContext -}}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "jtick.containerSecurity" -}}
{{- with .Values.securityContext -}}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* name/value env entries from a map, sorted by key. */}}
{{- define "jtick.envMap" -}}
{{- range $k, $v := . }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* HTTP liveness and readiness probes on Spring Boot's health groups. */}}
{{- define "jtick.probes" -}}
startupProbe:
  httpGet: {path: /actuator/health/liveness, port: http, scheme: {{ include "jtick.scheme" . | upper }}}
  periodSeconds: 2
  timeoutSeconds: 2
  failureThreshold: 90
livenessProbe:
  httpGet: {path: /actuator/health/liveness, port: http, scheme: {{ include "jtick.scheme" . | upper }}}
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet: {path: /actuator/health/readiness, port: http, scheme: {{ include "jtick.scheme" . | upper }}}
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 3
{{- end -}}

{{/* A PodDisruptionBudget for one component (dict "root" $ "component" "tp" "pdb" .Values.tp.podDisruptionBudget). */}}
{{- define "jtick.pdb" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "jtick.component" (dict "root" .root "component" .component) }}
  labels:
    {{- include "jtick.labels" .root | nindent 4 }}
    {{- include "jtick.selectorLabels" (dict "root" .root "component" .component) | nindent 4 }}
spec:
  maxUnavailable: {{ .pdb.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "jtick.selectorLabels" (dict "root" .root "component" .component) | nindent 6 }}
{{- end -}}

{{/*
The TP cluster's members (tp.cluster.enabled): pod i of the StatefulSet <fullname>-tp is member i, at
its stable name <fullname>-tp-i.<fullname>-tp-headless.<namespace>.svc.<clusterDomain>.
jtick.tpMemberHosts: those names, comma-separated.
*/}}
{{- define "jtick.tpMemberHosts" -}}
{{- $name := include "jtick.component" (dict "root" . "component" "tp") -}}
{{- $hosts := list -}}
{{- range $i := until (int .Values.tp.cluster.replicas) -}}
{{- $hosts = append $hosts (printf "%s-%d.%s-headless.%s.svc.%s" $name $i $name $.Release.Namespace $.Values.clusterDomain) -}}
{{- end -}}
{{- join "," $hosts -}}
{{- end -}}

{{/* Every member's feed/subscriber address host:tickPort, comma-separated (tick.rdb.tp-addresses, tick.feed.tp-addresses). */}}
{{- define "jtick.tpAddresses" -}}
{{- $out := list -}}
{{- range $host := splitList "," (include "jtick.tpMemberHosts" .) -}}
{{- $out = append $out (printf "%s:%v" $host $.Values.tp.tickPort) -}}
{{- end -}}
{{- join "," $out -}}
{{- end -}}

{{/* tick.tp.cluster.members: id=host:tpPort:kdbPort:clusterPortBase for each member. */}}
{{- define "jtick.tpClusterMembers" -}}
{{- $out := list -}}
{{- range $i, $host := splitList "," (include "jtick.tpMemberHosts" .) -}}
{{- $out = append $out (printf "%d=%s:%v:%v:%v" $i $host $.Values.tp.tickPort $.Values.tp.kdbPort $.Values.tp.cluster.portBase) -}}
{{- end -}}
{{- join "," $out -}}
{{- end -}}

{{/* Refuses TP cluster values that cannot make a cluster, naming the value. */}}
{{- define "jtick.tpClusterCheck" -}}
{{- $n := int .Values.tp.cluster.replicas -}}
{{- if or (lt $n 3) (eq (mod $n 2) 0) -}}
{{- fail (printf "tp.cluster.replicas must be odd and at least 3: a majority of an even count survives no more losses than one node fewer [value=%v]" .Values.tp.cluster.replicas) -}}
{{- end -}}
{{- if not (has .Values.tp.cluster.podAntiAffinity (list "soft" "hard" "none")) -}}
{{- fail (printf "tp.cluster.podAntiAffinity must be soft, hard or none [value=%s]" .Values.tp.cluster.podAntiAffinity) -}}
{{- end -}}
{{- end -}}
