#!/usr/bin/env bash
# Runs the README's command lines against the services `./jtick up` started, as a reader would
# paste them, in order, and fails on the first that fails: every `curl` line (with --fail-with-body
# added, so a 4xx/5xx answer counts), the shell variable lines (`D=...`, `ID=$(curl ...)`) and the quick `./jtick`
# lines (import, replays, status). Builds, tests, benchmarks, profiling, images and the soak are
# listed as skipped: they are not requests to the running services.
#
#   ./jtick up && bash docs/readme-check.sh; ./jtick down
#
# After a line that ends the day (POST /api/eod) it waits, as the README says ("a moment later"),
# until the HDB lists the day. Exit 0 when every line ran and answered 2xx.
set -uo pipefail
cd "$(dirname "$0")/.."
readme=${1:-README.md}

curl() { command curl --fail-with-body -sS --max-time 120 "$@"; }

for port in 8010 8011 8012 8013; do
    command curl -sf -o /dev/null "127.0.0.1:$port/actuator/health" \
        || { echo "readme-check: nothing answers on 127.0.0.1:$port: run ./jtick up first" >&2; exit 2; }
done

# logical lines of the ```bash blocks (a trailing backslash joins the next line)
lines=()
inside=0
current=""
while IFS= read -r raw; do
    if [[ $raw == '```bash' ]]; then inside=1; continue; fi
    if [[ $raw == '```' ]]; then inside=0; continue; fi
    ((inside)) || continue
    if [[ $raw =~ \\$ ]]; then current+="${raw%\\} "; continue; fi
    lines+=("$current$raw")
    current=""
done < "$readme"

ran=0
failed=0
skipped=0
for line in "${lines[@]}"; do
    cmd=${line#"${line%%[![:space:]]*}"}
    case $cmd in
        curl\ *|[A-Z]*=*|'./jtick import '*|'./jtick replays'*|'./jtick status'*) ;;
        *) echo "skipped: $cmd"; skipped=$((skipped + 1)); continue ;;
    esac
    echo "run: $cmd"
    if [[ $cmd =~ ^([A-Z]+)= ]]; then
        eval "$cmd"
        rc=$?
        out="${BASH_REMATCH[1]}=${!BASH_REMATCH[1]}"
    else
        out=$(eval "$cmd" 2>&1)
        rc=$?
    fi
    printf '%s\n' "$out" | head -c 600
    echo
    if ((rc != 0)); then
        echo "FAILED (exit $rc): $cmd" >&2
        failed=$((failed + 1))
        break
    fi
    ran=$((ran + 1))
    if [[ $cmd == *'/api/eod'* && $cmd == *POST* && $cmd != *replay* ]]; then
        day=$(date -u +%F)
        for _ in $(seq 1 60); do
            command curl -s 127.0.0.1:8012/api/partitions | grep -q "\"$day\"" && break
            sleep 1
        done
    fi
done
echo "readme-check: $ran passed, $failed failed, $skipped skipped"
((failed == 0))
