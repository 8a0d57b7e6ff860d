#!/usr/bin/env bash
# OCI images of the jtick services, built without a container daemon or registry (run it as ./jtick images,
# which first builds the service jars that are missing or stale). Why this way: docs/operations.md "Images".
#
#   ./jtick images [service...]      build target/images/<service>/ (OCI layouts), print digest and size of each
#   ./jtick images --list            print the image references it builds (jtick/<service>:<version>), build nothing
#
# Steps: 1. the builder (images/target/jtick-images.jar, built if missing or stale)
#        2. the base: Debian packages (apt-get download, apt's candidate versions) extracted with dpkg-deb
#        3. the runtime: jlink of the local JDK's jmods (the modules the services need), kept until the JDK changes
#        4. the images: base + runtime + the service's Spring Boot layers, one fixed time (SOURCE_DATE_EPOCH,
#           default the commit time of HEAD), so the same inputs give the same digests.
# Environment: JTICK_JAVA (java running the builder), JTICK_IMAGE_JDK (JDK whose jmods jlink uses; default the
# JDK of JTICK_JAVA), JTICK_IMAGE_DEBS (a directory holding the .deb files, instead of apt-get download),
# SOURCE_DATE_EPOCH (the time written into the images), JTICK_VERSION (image tag; ./jtick sets it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${JTICK_VERSION:?run this as ./jtick images}"
OUT="$ROOT/target/images"
WORK="$OUT/work"
PREFIX="jtick/"

# name:http-port[:other ports]; the TP's feed/subscriber port (and kdb+ port) and the HDB's replay port must listen on all
# interfaces in a container
IMAGES=(tp-service:8010:5010:5011 rdb-service:8011 hdb-service:8012:5012 feed-sim:8013)
declare -A IMAGE_ENV=([tp-service]="TICK_TP_HOST=0.0.0.0" [hdb-service]="TICK_HDB_REPLAY_HOST=0.0.0.0")
# the base: C/C++ runtime and zlib for the JVM and the codecs' native libraries, busybox (static) for the health check
PACKAGES=(libc6 libgcc-s1 libstdc++6 zlib1g busybox-static)
# what the services use of the JDK (Spring Boot needs java.desktop for java.beans; Chronicle needs jdk.compiler)
MODULES=java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.prefs
MODULES+=,java.rmi,java.scripting,java.security.jgss,java.sql,java.xml,jdk.compiler,jdk.crypto.ec,jdk.jfr,jdk.management
MODULES+=,jdk.management.jfr,jdk.naming.dns,jdk.unsupported,jdk.zipfs,jdk.httpserver
JLINK_OPTS=(--strip-debug --no-header-files --no-man-pages --compress=2)

die() { echo "jtick images: $*" >&2; exit 1; }
say() { echo "jtick images: $*"; }

if [[ "${1:-}" == --list ]]; then
    for i in "${IMAGES[@]}"; do echo "$PREFIX${i%%:*}:$VERSION"; done
    exit 0
fi
wanted=("$@")
selected=()
for i in "${IMAGES[@]}"; do
    if [[ ${#wanted[@]} -eq 0 || " ${wanted[*]} " == *" ${i%%:*} "* ]]; then selected+=("$i"); fi
done
for w in "${wanted[@]}"; do
    [[ " ${IMAGES[*]%%:*} " == *" $w "* ]] || die "unknown image [image=$w, known=${IMAGES[*]%%:*}]"
done

JAVA="${JTICK_JAVA:-$(command -v java || true)}"
[[ -x "$JAVA" ]] || die "no java: set JTICK_JAVA"
JDK="${JTICK_IMAGE_JDK:-$(dirname "$(dirname "$(readlink -f "$JAVA")")")}"
[[ -f "$JDK/jmods/java.base.jmod" ]] || die "no jmods in $JDK: jlink needs them (Debian: apt-get install openjdk-17-jdk-headless; or set JTICK_IMAGE_JDK to a JDK that has jmods)"
mkdir -p "$WORK"

# 1. the builder
TOOL="$ROOT/images/target/jtick-images.jar"
if [[ ! -f "$TOOL" ]] || [[ -n "$(find "$ROOT/images/src/main" "$ROOT/images/pom.xml" -newer "$TOOL" -type f -print -quit)" ]]; then
    say "building the image builder (images/target/jtick-images.jar)"
    (cd "$ROOT" && ./mvnw -B -q -DskipTests package -pl images) || die "build failed: ./mvnw -B -DskipTests package -pl images"
fi

# 2. the base from Debian packages
DEBS="${JTICK_IMAGE_DEBS:-$WORK/debs}"
mkdir -p "$DEBS"
missing=()
for p in "${PACKAGES[@]}"; do
    compgen -G "$DEBS/${p}_*.deb" > /dev/null || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    [[ -z "${JTICK_IMAGE_DEBS:-}" ]] || die "no .deb for ${missing[*]} in $DEBS"
    command -v apt-get > /dev/null || die "apt-get not found: the base is made of Debian packages; put ${PACKAGES[*]} (.deb) in a directory and set JTICK_IMAGE_DEBS"
    say "downloading Debian packages: ${missing[*]}"
    download() { (cd "$DEBS" && apt-get download -q "${missing[@]}" 2> >(grep -v '^W: Download is performed unsandboxed' >&2)); }
    if ! download; then
        # a fresh machine has no package lists yet
        [[ "$(id -u)" -eq 0 ]] && apt-get update -q > /dev/null 2>&1 && download \
            || die "apt-get download ${missing[*]} failed (run apt-get update first)"
    fi
fi
ROOTFS="$WORK/rootfs"
rm -rf "$ROOTFS"
mkdir -p "$ROOTFS"
versions=()
for p in "${PACKAGES[@]}"; do
    deb="$(compgen -G "$DEBS/${p}_*.deb" | sort | tail -1)"
    dpkg-deb -x "$deb" "$ROOTFS" || die "dpkg-deb -x $deb failed"
    versions+=("$p=$(dpkg-deb -f "$deb" Version)")
done
# dpkg-deb -x keeps each file's mode; the layer sets every owner to root
PACKAGE_LIST="${versions[*]}"

# 3. the runtime: jlink, redone when the JDK, the modules or the options change
RUNTIME="$WORK/runtime"
KEY_FILE="$WORK/runtime.key"
key="$(cat "$JDK/release" 2> /dev/null; echo "$MODULES ${JLINK_OPTS[*]}")"
if [[ ! -d "$RUNTIME" || ! -f "$KEY_FILE" ]] || [[ "$(cat "$KEY_FILE")" != "$key" ]]; then
    say "jlink: $JDK ($MODULES)"
    rm -rf "$RUNTIME" "$KEY_FILE"
    "$JDK/bin/jlink" --module-path "$JDK/jmods" --add-modules "$MODULES" "${JLINK_OPTS[@]}" --output "$RUNTIME" \
        || die "jlink failed"
    echo "$key" > "$KEY_FILE"
fi
runtime_version="$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$RUNTIME/release")"
runtime_vendor="$(sed -n 's/^IMPLEMENTOR="\(.*\)"/\1/p' "$RUNTIME/release")"

# 4. the images
EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2> /dev/null || echo 0)}"
args=(--out "$OUT" --rootfs "$ROOTFS" --runtime "$RUNTIME" --jvm-options "$ROOT/jvm.options" --version "$VERSION"
    --repository-prefix "$PREFIX" --epoch "$EPOCH"
    --label "io.jtick.image.base.packages=$PACKAGE_LIST"
    --label "io.jtick.image.runtime=${runtime_vendor:-OpenJDK} $runtime_version (jlink: $MODULES)")
for i in "${selected[@]}"; do
    IFS=: read -r name http others <<< "$i"
    jar="$ROOT/$name/target/$name-$VERSION.jar"
    [[ -f "$jar" ]] || die "missing $jar (./jtick images builds it: run it through ./jtick)"
    args+=(--image "$name=$jar" --http-port "$http")
    for p in ${others//:/ }; do args+=(--port "$p"); done
    for e in ${IMAGE_ENV[$name]:-}; do args+=(--env "$e"); done
done
say "base: $PACKAGE_LIST; runtime: $runtime_version; time: $(date -u -d "@$EPOCH" +%FT%TZ)"
"$JAVA" -jar "$TOOL" "${args[@]}"
say "images in $OUT (list: $OUT/images.txt). Load one into a registry: skopeo copy oci:$OUT/<service>:$VERSION docker://<registry>/${PREFIX}<service>:$VERSION"
