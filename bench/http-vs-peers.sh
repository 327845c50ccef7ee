#!/usr/bin/env bash
# HTTP generators side by side: benchtui, fortio and wrk against the same
# loopback server (benchtui demo-target's /ping), the generator pinned to
# cpu0 and the server to cpu1, 50 connections, REPS interleaved repetitions
# of DUR each. Prints throughput and requests per generator CPU-second for
# each run, the medians, and benchtui's ratios to the best peer.
#
#   bench/http-vs-peers.sh                 # 3 x 10s
#   REPS=5 DUR=20 bench/http-vs-peers.sh
#   SOAK=600 bench/http-vs-peers.sh        # also: benchtui alone for 600 s, its own RSS
#   CLIENT=epoll bench/http-vs-peers.sh    # the plan's http.client (default auto)
#   CLIENT="auto epoll" bench/http-vs-peers.sh   # each, interleaved (benchtui-auto, benchtui-epoll)
#   CLIENT="epoll epoll:8" bench/http-vs-peers.sh  # CLIENT:N is http.pipeline N
#   BASE=main bench/http-vs-peers.sh       # also benchtui built from git revision BASE ("base")
#   TOOLS="benchtui wrk" bench/http-vs-peers.sh   # leave fortio out
#   SHARE=1 bench/http-vs-peers.sh         # generator and server share both cores (not pinned apart)
#
# Needs: wrk (apt-get install wrk), fortio (go install fortio.org/fortio@v1.66.5),
# taskset, python3. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
DUR=${DUR:-10}
CONNS=${CONNS:-50}
CLIENT=${CLIENT:-auto}
if [ "${SHARE:-0}" = 1 ]; then GEN_CPUS=0,1 SERVER_CPUS=0,1; else GEN_CPUS=0 SERVER_CPUS=1; fi
TOOLS=${TOOLS:-benchtui fortio wrk}
FORTIO=${FORTIO:-$(command -v fortio || echo "$HOME/go/bin/fortio")}
out=$(mktemp -d /tmp/btpeers.XXXXXX)
trap 'kill "$server_pid" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$out"' EXIT

. bench/pinned-demo.sh   # sets server_pid and addr
url="http://$addr/ping"

# plan FILE CLIENT[:PIPELINE]: the one-group plan, with http.client CLIENT.
plan() {
  local client=${2%%:*} depth=""
  [ "$client" = "$2" ] || depth=", pipeline: ${2#*:}"
  cat >"$1" <<EOF
version: 1
groups:
  - id: peers
    runner: http
    http: {requests: [{url: "$url"}], client: $client$depth}
    load: {concurrency: $CONNS}
    duration: ${DUR}s
EOF
}
plan "$out/base.yaml" auto
for c in $CLIENT; do plan "$out/plan-$c.yaml" "$c"; done
if [ "$CLIENT" = "${CLIENT% *}" ]; then  # one client: the tool is "benchtui"
  cp "$out/plan-$CLIENT.yaml" "$out/plan.yaml"
  benchtuis=benchtui
else
  benchtuis=$(for c in $CLIENT; do printf 'benchtui-%s ' "$c"; done)
  TOOLS=${TOOLS/benchtui/$benchtuis}
fi

# cpu_of CMD...: runs CMD on GEN_CPUS; prints its user+sys CPU seconds on fd 3.
cpu_of() {
  local t0 t1
  t0=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
  /usr/bin/env time -f '%U %S' -o "$out/time" taskset -c "$GEN_CPUS" "$@" >"$out/stdout" 2>"$out/stderr" || true
  awk '{printf "%.3f", $1+$2}' "$out/time" >&3
}

if [ -n "${BASE:-}" ]; then
  mkdir -p "$out/src"
  git archive "$BASE" | tar -x -C "$out/src"
  (cd "$out/src" && go build -o "$out/base" ./cmd/benchtui)
  TOOLS="base $TOOLS"
fi

run_benchtui() { run_binary "$out/benchtui" "$out/plan.yaml"; }
for c in $CLIENT; do eval "run_benchtui-$c() { run_binary \"\$out/benchtui\" \"\$out/plan-$c.yaml\"; }"; done
run_base() { run_binary "$out/base" "$out/base.yaml"; }
# run_binary BINARY PLAN: one pinned benchtui run; prints "rps requests".
run_binary() {
  rm -rf "$out/art"
  cpu_of "$1" run "$2" -o "$out/art" 3>"$out/cpu"
  python3 - "$out"/art/peers-*.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["steps"][0]
print(s["throughput_rps"], s["requests"])
PY
}
run_fortio() {
  cpu_of "$FORTIO" load -quiet -c "$CONNS" -qps 0 -t "${DUR}s" -nocatchup "$url" 3>"$out/cpu"
  cat "$out/stderr" "$out/stdout" | grep -Eo 'All done [0-9]+ calls .* [0-9.]+ qps' | head -1 |
    sed -E 's/All done ([0-9]+) calls.* ([0-9.]+) qps/\2 \1/'
}
run_wrk() {
  cpu_of wrk -t1 -c"$CONNS" -d"${DUR}s" "$url" 3>"$out/cpu"
  awk '/Requests\/sec/{rps=$2} /requests in/{n=$1} END{print rps, n}' "$out/stdout"
}

printf '%-15s %3s %12s %14s %8s\n' tool rep req/s req/cpu-s cpu-s
for rep in $(seq "$REPS"); do
  for tool in $TOOLS; do
    read -r rps n < <("run_$tool")
    cpu=$(cat "$out/cpu")
    per=$(python3 -c "print(round($n / $cpu) if $cpu > 0 else 0)")
    printf '%-15s %3d %12.0f %14s %8s\n' "$tool" "$rep" "$rps" "$per" "$cpu" | tee -a "$out/results"
  done
done

python3 - "$out/results" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    tool, _, rps, per, _ = line.split()
    rows.setdefault(tool, []).append((float(rps), float(per)))
med = {t: (st.median(r for r, _ in v), st.median(p for _, p in v)) for t, v in rows.items()}
print("\nmedians")
for t, (r, p) in med.items():
    print(f"{t:15s} {r:12.0f} req/s {p:12.0f} req/cpu-s")
ours = [t for t in med if t == "base" or t.startswith("benchtui")]
peers = {t: v for t, v in med.items() if t not in ours}
best_r = max(v[0] for v in peers.values()); best_p = max(v[1] for v in peers.values())
print()
for t in ours:
    b = med[t]
    line = f"{t} / best peer: throughput {b[0]/best_r:.2f}, requests per CPU-second {b[1]/best_p:.2f}"
    if "base" in med and t != "base":
        line += f"; / base: {b[1]/med['base'][1]:.2f}"
    print(line)
PY

if [ -n "${SOAK:-}" ]; then
  sed -i "s/duration: .*/duration: ${SOAK}s/" "$out/plan.yaml"
  rm -rf "$out/art"
  taskset -c "$GEN_CPUS" "$out/benchtui" run "$out/plan.yaml" -o "$out/art" >/dev/null 2>&1
  python3 - "$out"/art/peers-*.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["steps"][0]
me = s.get("self") or {}
r = me.get("rss_mb", {})
print(f"\nsoak {s['duration_s']:.0f}s at {s['throughput_rps']:.0f} req/s: benchtui RSS start {r.get('start')} MB, "
      f"peak {r.get('peak')} MB, end {r.get('end')} MB, slope {me.get('rss_slope_mb_per_min')} MB/min")
PY
fi
