#!/usr/bin/env bash
# busy-suite: does the whole test suite pass on a busy machine?
#
# Starts BURNERS processes that each keep a core busy (`yes > /dev/null`),
# then runs the test command written in README.md RUNS times in a row with
# -count=1 (no cached results), and stops the burners by their PIDs. Each
# run's output is kept in bench/out/busy-suite/run-N.log; the summary line
# says how many runs passed and how long each took.
#
# It expects what .ci/run installs (Postgres binaries, tmux, caddy).
#
# usage: bench/busy-suite.sh [RUNS=3] [BURNERS=2]
set -euo pipefail

RUNS=${1:-3}
BURNERS=${2:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/bench/out/busy-suite"
mkdir -p "$OUT"
cd "$ROOT"

pids=()
stop_burners() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_burners EXIT
for _ in $(seq "$BURNERS"); do
  yes >/dev/null &
  pids+=($!)
done
echo "busy-suite: $BURNERS burners (pids ${pids[*]}) on $(nproc) cores"

test_cmd="$(grep -m1 -E '^go test ' README.md) -count=1"
passed=0
for i in $(seq "$RUNS"); do
  start=$(date +%s)
  if eval "$test_cmd" >"$OUT/run-$i.log" 2>&1; then
    result=pass
    passed=$((passed + 1))
  else
    result=FAIL
    grep -E '^(--- FAIL|FAIL|panic)' "$OUT/run-$i.log" | head -20 || true
  fi
  echo "busy-suite: run $i: $result in $(($(date +%s) - start)) s ($test_cmd; log $OUT/run-$i.log)"
done
echo "busy-suite: $passed/$RUNS runs passed with $BURNERS burners"
[ "$passed" -eq "$RUNS" ]
