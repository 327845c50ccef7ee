#!/usr/bin/env bash
# console-vs-headless: does watching a run in the console cost throughput?
#
# Runs the demo plan's `ping` group (closed loop, 8 workers, GET /ping on the
# demo server, a separate watched process on loopback) headless
# (`benchtui run`) and in the console under tmux, interleaved, REPS times
# each. Reports each run's throughput (from its artifact) and the CPU time
# of the benchtui process over the run (utime+stime from /proc/PID/stat; the
# process holds the load generator too, and the demo server is a child not
# counted), then the console/headless throughput ratio. Goal: >= 0.97.
# Each console run has the headless run before it as its baseline, so the
# baseline pane is live.
#
# usage: bench/console-vs-headless.sh [DURATION=15s] [REPS=3]
set -euo pipefail

DURATION=${1:-15s}
REPS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/console-vs-headless.XXXXXX)
SOCK="cvh-$$"
BIN="$WORK/benchtui"
HZ=$(getconf CLK_TCK)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; rm -rf "$WORK"' EXIT

command -v tmux >/dev/null || { echo "needs tmux" >&2; exit 2; }
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 2; }
(cd "$ROOT" && go build -o "$BIN" ./cmd/benchtui)

# cpu_ticks PID: utime+stime of PID, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo ""; }

# rps DIR: throughput of the newest artifact in DIR.
rps() {
  python3 - "$1" <<'PY'
import glob, json, sys
path = max(glob.glob(sys.argv[1] + "/ping-*.json"), key=lambda p: int(p.rsplit("-", 1)[1][:-5]))
a = json.load(open(path))
s = a["steps"][0]
print(f'{s["throughput_rps"]:.0f} {s["latency_ms"]["p99"]:.2f} {s["duration_s"]:.1f} {a["run"]["partial"]}')
PY
}

headless() {
  local dir="$WORK/h$1" cwd="$WORK/hc$1"
  mkdir -p "$cwd"
  local t0 last pid
  t0=$(date +%s.%N)
  (cd "$cwd" && exec "$BIN" run -g ping --duration "$DURATION" -o "$dir" >/dev/null 2>&1) &
  pid=$!
  last=0
  while kill -0 "$pid" 2>/dev/null; do
    t=$(cpu_ticks "$pid"); [ -n "$t" ] && last=$t
    sleep 0.1
  done
  wait "$pid" || true
  report headless "$1" "$dir" "$last" "$t0" "$(date +%s.%N)"
}

# The console writes beside the headless run of the same rep, so that run
# is its baseline and the baseline pane is compared every second, as in use.
console() {
  local dir="$WORK/h$1" cwd="$WORK/cc$1" name="c$1"
  mkdir -p "$cwd"
  tmux -L "$SOCK" new-session -d -x 100 -y 30 -s "$name" -c "$cwd" \
    "exec $BIN --duration $DURATION -o $dir"
  local pid
  pid=$(tmux -L "$SOCK" display -p -t "$name" '#{pane_pid}')
  until tmux -L "$SOCK" capture-pane -p -t "$name" | grep -q 'ping .*idle'; do sleep 0.1; done
  local c0 t0 last tpid x0
  tpid=$(tmux -L "$SOCK" display -p '#{pid}')
  c0=$(cpu_ticks "$pid"); x0=$(cpu_ticks "$tpid"); t0=$(date +%s.%N)
  tmux -L "$SOCK" send-keys -t "$name" Enter
  last=$c0
  until [ "$(ls "$dir"/ping-*.json 2>/dev/null | wc -l)" -ge 2 ] && \
        tmux -L "$SOCK" capture-pane -p -t "$name" | grep -q 'ping .*done'; do
    t=$(cpu_ticks "$pid"); [ -n "$t" ] && last=$t
    sleep 0.1
  done
  local t1 x1; t1=$(date +%s.%N); x1=$(cpu_ticks "$tpid")
  echo "         (the tmux server drew it with $(awk -v t=$((x1 - x0)) -v hz="$HZ" 'BEGIN{printf "%.2f", t / hz}') s of cpu)"
  tmux -L "$SOCK" send-keys -t "$name" q
  while tmux -L "$SOCK" has-session -t "$name" 2>/dev/null; do sleep 0.1; done
  report console "$1" "$dir" "$((last - c0))" "$t0" "$t1"
}

# report MODE REP DIR TICKS T0 T1
report() {
  local r; r=$(rps "$3")
  awk -v m="$1" -v i="$2" -v r="$r" -v ticks="$4" -v hz="$HZ" -v t0="$5" -v t1="$6" 'BEGIN {
    split(r, f, " "); cpu = ticks / hz; wall = t1 - t0
    printf "%-8s rep %d  rps %6s  p99 %5s ms  measured %4ss  partial %-5s  cpu %5.2f s / %4.1f s wall = %4.2f cores, %5.2f us/request\n",
      m, i, f[1], f[2], f[3], f[4], cpu, wall, cpu / wall, cpu * 1e6 / (f[1] * f[3])
  }'
  echo "$1 $r $4 $5 $6" >> "$WORK/results"
}

echo "benchtui console vs headless: demo ping, closed loop 8 workers, --duration $DURATION, $REPS reps, $(nproc) cpus"
for i in $(seq 1 "$REPS"); do
  headless "$i"
  console "$i"
done
awk -v hz="$HZ" '
  { n[$1]++; rps[$1] += $2; cpu[$1] += $6 / hz; wall[$1] += $8 - $7; req[$1] += $2 * $4
    if ($1 == "headless") h = $2; else ratio[n[$1]] = $2 / h }
  END {
    for (m in n) printf "%-8s mean rps %6.0f  mean cpu %.2f cores, %5.2f us/request\n", m, rps[m] / n[m], cpu[m] / wall[m], cpu[m] * 1e6 / req[m]
    printf "console/headless throughput: %.3f of the means (goal >= 0.97); per pair:", (rps["console"] / n["console"]) / (rps["headless"] / n["headless"])
    for (i = 1; i <= n["console"]; i++) printf " %.3f", ratio[i]
    printf "\n"
  }' "$WORK/results"
