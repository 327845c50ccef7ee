#!/usr/bin/env bash
# System calls per request of the HTTP generators, benchtui and wrk, on the
# pinned loopback setup of http-vs-peers.sh (generator on cpu0, benchtui
# demo-target's /ping on cpu1, 50 connections, DUR seconds each): perf stat
# counts the generator's syscalls by kind, divided by its request count.
#
#   bench/http-syscalls.sh                  # 5 s each
#   CLIENT=epoll DUR=10 bench/http-syscalls.sh
#
# CLIENT is the plan's http.client for benchtui (default: auto); PIPELINE,
# with CLIENT=epoll, its http.pipeline; BASE=REV measures benchtui built
# from git revision REV instead of this tree.
# Needs: perf with the syscalls tracepoints, wrk, taskset, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-5}
CONNS=${CONNS:-50}
CLIENT=${CLIENT:-auto}
PIPELINE=${PIPELINE:-1}
out=$(mktemp -d /tmp/btsys.XXXXXX)
trap 'kill "$server_pid" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$out"' EXIT

. bench/pinned-demo.sh   # sets server_pid and addr
if [ -n "${BASE:-}" ]; then
  mkdir -p "$out/src"
  git archive "$BASE" | tar -x -C "$out/src"
  (cd "$out/src" && go build -o "$out/benchtui" ./cmd/benchtui)
fi
url="http://$addr/ping"
cat >"$out/plan.yaml" <<EOF
version: 1
groups:
  - id: sys
    runner: http
    http: {requests: [{url: "$url"}], client: $CLIENT$([ "$PIPELINE" = 1 ] || echo ", pipeline: $PIPELINE")}
    load: {concurrency: $CONNS}
    duration: ${DUR}s
EOF

events=task-clock,context-switches,raw_syscalls:sys_enter
for s in read write epoll_wait epoll_pwait epoll_pwait2 futex nanosleep sched_yield getpid tgkill rt_sigreturn; do
  events="$events,syscalls:sys_enter_$s"
done

# counted NAME REQUESTS: prints the perf counts in $out/perf and the user
# and system CPU in $out/time per request (task-clock and CPU in µs).
counted() {
  python3 - "$1" "$2" "$out/perf" "$out/time" <<'PY'
import sys
name, n = sys.argv[1], float(sys.argv[2])
rows = []
for line in open(sys.argv[3]):
    f = line.split(",")
    if len(f) > 2 and f[0].strip().replace(".", "").isdigit():
        v = float(f[0]) / n
        if f[2] == "task-clock":
            v *= 1000  # msec per request, as µs
        rows.append((f[2].split(":")[-1].replace("sys_enter_", ""), v))
u, s = map(float, open(sys.argv[4]).read().split())
print(f"{name}: {int(n)} requests; per request: user {u / n * 1e6:.2f} µs, sys {s / n * 1e6:.2f} µs, " +
      ", ".join(f"{k} {v:.2f}" for k, v in rows if v >= 0.005))
PY
}
# measured CMD...: runs CMD pinned to cpu0 under perf stat and time.
measured() {
  /usr/bin/env time -f '%U %S' -o "$out/time" perf stat -x, -e "$events" -o "$out/perf" taskset -c 0 "$@"
}

rm -rf "$out/art"
measured "$out/benchtui" run "$out/plan.yaml" -o "$out/art" >/dev/null 2>&1
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["requests"])' "$out"/art/sys-*.json)
counted "benchtui${BASE:+ $BASE} ($CLIENT, pipeline $PIPELINE)" "$n"

measured wrk -t1 -c"$CONNS" -d"${DUR}s" "$url" >"$out/wrk"
n=$(awk '/requests in/{print $1}' "$out/wrk")
counted wrk "$n"
