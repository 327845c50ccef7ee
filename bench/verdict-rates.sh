#!/usr/bin/env bash
# verdict-rates: how often does `benchtui compare` call noise a change, and
# how often does it catch a real one?
#
# Starts `benchtui demo-target` (a separate process on loopback) and runs
# pairs of `benchtui run` against it, comparing each pair with
# `benchtui compare --format json`:
#   same     both runs against the unchanged server (/work?ms=20): every
#            "worse" or "better" row is a false positive
#   slower   the second run against /work?ms=22 (10% slower service)
#   2x       the second run against /work?ms=40
# Samples are blocks of BLOCK within one run (DURATION long), or, with
# COUNT > 1, COUNT runs of DURATION each (run --count).
#
# CONC is the closed loop's workers: 4 give about 200 requests a second
# (too few for a p99 per 1 s block), 64 about 3,000.
#
# usage: bench/verdict-rates.sh [PAIRS=20] [DURATION=4s] [BLOCK=1s] [COUNT=1] [CONC=4]
set -euo pipefail

PAIRS=${1:-20}
DURATION=${2:-4s}
BLOCK=${3:-1s}
COUNT=${4:-1}
CONC=${5:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/verdict-rates.XXXXXX)
BIN="$WORK/benchtui"
(cd "$ROOT" && go build -o "$BIN" ./cmd/benchtui)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" demo-target --http "127.0.0.1:$PORT" >"$WORK/demo.log" 2>&1 &
DEMO=$!
trap 'kill "$DEMO" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done

# plan MS: a closed loop of CONC workers on /work?ms=MS.
plan() {
  cat >"$WORK/plan-$1.yaml" <<YAML
version: 1
groups:
  - id: work
    runner: http
    http: {requests: [{url: "http://127.0.0.1:$PORT/work?ms=$1"}]}
    load: {concurrency: $CONC}
    duration: $DURATION
    block: $BLOCK
YAML
  echo "$WORK/plan-$1.yaml"
}

# pair BASE_MS CUR_MS: run both, print the compare JSON.
pair() {
  local b="$WORK/b" c="$WORK/c"
  rm -rf "$b" "$c"
  "$BIN" run "$(plan "$1")" -o "$b" --count "$COUNT" >/dev/null 2>&1
  "$BIN" run "$(plan "$2")" -o "$c" --count "$COUNT" >/dev/null 2>&1
  "$BIN" compare "$b" "$c" --format json 2>/dev/null || true
}

for mode in same slower 2x; do
  case $mode in same) cur=20 ;; slower) cur=22 ;; 2x) cur=40 ;; esac
  for i in $(seq "$PAIRS"); do pair 20 "$cur" >"$WORK/$mode-$i.json"; done
  python3 - "$mode" "$WORK" "$DURATION" "$BLOCK" "$COUNT" "$CONC" <<'PY'
import glob, json, sys
mode, work, dur, block, count, conc = sys.argv[1:]
sampled = ["throughput_rps", "ok_rps", "p50", "p90", "p99", "p999", "max", "error_rate"]
any_call, p50_worse, n = 0, 0, 0
per_row = {m: 0 for m in sampled}
deltas = []
for path in sorted(glob.glob(f"{work}/{mode}-*.json")):
    text = open(path).read().strip()
    if not text:
        continue
    rows = [r for r in json.loads(text)["rows"] if r["metric"] in sampled]
    n += 1
    called = [r for r in rows if r["verdict"] != "same"]
    any_call += bool(called)
    for r in called:
        per_row[r["metric"]] += 1
        deltas.append(f'{r["metric"]} {r["delta_pct"]:+.1f}%')
    p50_worse += any(r["metric"] == "p50" and r["verdict"] == "worse" for r in rows)
print(f"{mode:7s} duration={dur} block={block} count={count} conc={conc} pairs={n}: "
      f"any row called {any_call}/{n}, p50 worse {p50_worse}/{n}, per row {per_row}")
if mode == "same" and deltas:
    print("  the calls: " + ", ".join(deltas))
PY
done
