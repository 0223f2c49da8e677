#!/bin/bash
# Instructions the service executes per request, counted by valgrind's callgrind: repeatable
# where timings are not (on a shared 2-core machine req/s and CPU time per request move by ±20 %
# between runs of one build; two runs of this script agree within about 0.3 %, but now and then
# one comes out ~15 % higher, so run each variant twice).
#
# Usage (after npm run build): bench/instructions-per-request.sh [PATH [REQUESTS]] [NAME=VALUE ...]
#   PATH      default /get-user; /get-all-notes and /search-notes?query=... work the same way
#   REQUESTS  counted requests, default 3000 (after 2000 not counted, so V8 has optimised)
#   NAME=VALUE service settings, e.g. METRICS_ENABLED=false or LISTING_CACHE_MB=0
# It starts the built service (node dist/src/cli.js serve) under callgrind on a fresh DATA_DIR,
# registers a user with 20 notes, sends the warm-up, zeroes the counters (callgrind_control -z),
# sends REQUESTS requests with autocannon (4 connections), dumps the counters and prints the
# total divided by REQUESTS. User-space instructions only: the kernel's share (syscalls) is not
# counted. Takes about a minute.
set -euo pipefail
path=${1:-/get-user}
requests=${2:-3000}
shift $(($# < 2 ? $# : 2))
here=$(cd "$(dirname "$0")/.." && pwd)
data=$(mktemp -d "${TMPDIR:-/tmp}/notes-instructions-XXXXXX")
port=$((20000 + RANDOM % 20000))
# vgdb (behind callgrind_control) finds the process by a name made of USER and HOST; the
# service reads HOST too, so both get the same values.
export USER=${USER:-root} HOST=127.0.0.1
autocannon="node $here/node_modules/autocannon/autocannon.js"
cleanup() {
  [ -n "${pid:-}" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT

env DATA_DIR="$data" PORT="$port" LOG_LEVEL=warn BRUTE_FORCE_PROTECTION=false \
  ACCESS_TOKEN_SECRET=instructions-per-request-secret-0123456789 "$@" \
  valgrind --tool=callgrind --callgrind-out-file="$data/callgrind.out" node "$here/dist/src/cli.js" serve \
  >"$data/service.log" 2>&1 &
pid=$!
base=http://127.0.0.1:$port
for _ in $(seq 240); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.5; done
token=$(curl -sf -X POST "$base/create-account" -H 'content-type: application/json' \
  -d '{"fullName":"Counted","email":"counted@bench.example","password":"correct horse battery"}' |
  node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).accessToken')
for i in $(seq 20); do
  curl -sf -X POST "$base/add-note" -H "authorization: Bearer $token" -H 'content-type: application/json' \
    -d "{\"title\":\"note $i\",\"content\":\"grocery list $i\"}" >/dev/null
done
$autocannon -c 4 -a 2000 -H "authorization=Bearer $token" "$base$path" >/dev/null 2>&1
sleep 1
callgrind_control -z "$pid" >/dev/null 2>&1
$autocannon -c 4 -a "$requests" -H "authorization=Bearer $token" "$base$path" >/dev/null 2>&1
callgrind_control -d "$pid" >/dev/null 2>&1
sleep 1
total=$(grep -h -E '^(summary|totals):' "$data"/callgrind.out.* | head -1 | awk '{print $2}')
echo "$path: $total instructions for $requests requests, $((total / requests)) per request"
