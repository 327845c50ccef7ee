#!/usr/bin/env bash
# The lean HTTP client with a static body against the same body rendered
# from templates, through the real binary: benchtui demo-target's /ping on
# cpu1, the generator on cpu0, 50 connections, REPS interleaved runs of DUR
# each. Prints each run's throughput and requests per generator
# CPU-second, the medians, and templated / static.
#
#   bench/templates.sh                 # 3 x 5s
#   REPS=5 DUR=10 bench/templates.sh
#
# Needs: taskset, python3, GNU time. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
DUR=${DUR:-5}
CONNS=${CONNS:-50}
out=$(mktemp -d /tmp/bttmpl.XXXXXX)
trap 'kill "$server_pid" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$out"' EXIT

. bench/pinned-demo.sh   # sets server_pid and addr

# plan NAME BODY: a one-group plan posting BODY to /ping.
plan() {
  cat >"$out/$1.yaml" <<EOF2
version: 1
groups:
  - id: $1
    runner: http
    http: {requests: [{method: POST, url: "http://$addr/ping", body: '$2'}]}
    load: {concurrency: $CONNS}
    duration: ${DUR}s
EOF2
}
plan static '{"id":"6f1c2a9e-3b7d-4c21-9a55-0e8d7f6b4c3a","seq":12345,"at":1764554400000}'
plan templated '{"id":"{{uuid}}","seq":{{seq}},"at":{{now_ms}}}'

# run NAME: prints "rps cpu_seconds" of one pinned run.
run() {
  rm -rf "$out/art"
  /usr/bin/env time -f '%U %S' -o "$out/time" taskset -c 0 "$out/benchtui" run "$out/$1.yaml" -o "$out/art" >/dev/null 2>&1 || true
  python3 - "$out"/art/"$1"-*.json "$out/time" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["steps"][0]
u, sy = map(float, open(sys.argv[2]).read().split())
print(s["throughput_rps"], u + sy, s["errors"])
PY
}

for i in $(seq "$REPS"); do
  for name in static templated; do
    echo "$name $(run "$name")" | tee -a "$out/results"
  done
done
python3 - "$out/results" "$DUR" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, rps, cpu, errors = line.split()
    rows.setdefault(name, []).append((float(rps), float(rps) * float(sys.argv[2]) / float(cpu)))
med = {n: (statistics.median(r for r, _ in v), statistics.median(c for _, c in v)) for n, v in rows.items()}
for n, (r, c) in med.items():
    print(f"{n:10s} median {r:10.0f} req/s {c:10.0f} req per CPU-second")
print(f"templated / static: throughput {med['templated'][0] / med['static'][0]:.2f}, per CPU-second {med['templated'][1] / med['static'][1]:.2f}")
PY
