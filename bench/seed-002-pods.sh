#!/usr/bin/env bash
# Seed 002's per-pod resource table with real cgroups: three demo servers
# stand in for the three pods, each in a cgroup of its own (memory and
# cpuacct, cgroup v1, made under this shell's own), and benchtui watches the
# three folders as `cgroup:` targets (the kubelet's working set, CPU cores,
# throttling) while the pooled QUIC FETCH sweep of examples/seed-002.yaml
# loads pod-a. Prints `benchtui report`'s Targets table: memory and CPU per
# pod at each worker count, and their sum.
#
#   sudo bench/seed-002-pods.sh            # DUR=12s per step by default
#
# Linux, root, a cgroup v1 memory and cpuacct hierarchy (as on this project's
# CI machine); on a cgroup v2 host it stops with the reason. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-12s}
HTTP=${HTTP:-127.0.0.1:18090}
QUIC=${QUIC:-127.0.0.1:18490}
out=${OUT:-bench/out/seed-002-pods}
rm -rf "$out" && mkdir -p "$out"

if [ -e /sys/fs/cgroup/cgroup.controllers ] || [ ! -d /sys/fs/cgroup/memory ] || [ ! -d /sys/fs/cgroup/cpuacct ]; then
  echo "seed-002-pods: needs cgroup v1 memory and cpuacct hierarchies (/sys/fs/cgroup/memory, /sys/fs/cgroup/cpuacct)" >&2
  exit 2
fi
own() { awk -F: -v c="$1" '$2 == c {print $3}' /proc/self/cgroup; }
# Both folders at one relative path, as a kubelet or docker makes them:
# under this shell's memory cgroup (so the pods stay in its accounting).
rel=$(own memory)
mem_base=/sys/fs/cgroup/memory$rel
cpu_base=/sys/fs/cgroup/cpuacct$rel

go build -o "$out/benchtui" ./cmd/benchtui
pids=()
dirs=()
made=() # the cpuacct folders mkdir -p makes, shallowest first
d=$cpu_base
while [ ! -d "$d" ]; do made=("$d" "${made[@]}"); d=$(dirname "$d"); done
mkdir -p "$cpu_base"
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for d in "${dirs[@]}"; do rmdir "$d" 2>/dev/null || true; done
  for ((i = ${#made[@]} - 1; i >= 0; i--)); do rmdir "${made[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT

# pod NAME ARGS...: a demo server in cgroups NAME of both hierarchies.
pod() {
  local name=$1; shift
  local m="$mem_base/benchtui-$name-$$" c="$cpu_base/benchtui-$name-$$"
  mkdir "$m" "$c"
  dirs+=("$m" "$c")
  sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" && shift 2 && exec "$@"' \
    sh "$m" "$c" "$out/benchtui" demo-target "$@" >"$out/$name.out" 2>&1 &
  pids+=($!)
  eval "${name//-/_}_dir=$m"
}
pod pod-a --http "$HTTP" --quic "$QUIC"
pod pod-b --http 127.0.0.1:0
pod pod-c --http 127.0.0.1:0
for _ in $(seq 50); do grep -q '^quic ' "$out/pod-a.out" 2>/dev/null && break; sleep 0.1; done

cat >"$out/plan.yaml" <<PLAN
version: 1
targets:
  pod-a: {cgroup: "$pod_a_dir", sample: 5s}
  pod-b: {cgroup: "$pod_b_dir", sample: 5s}
  pod-c: {cgroup: "$pod_c_dir", sample: 5s}
groups:
  - id: reads-fetch-pooled
    title: Reads — QUIC FETCH, pooled connections, worker sweep (pods in cgroups)
    target: [pod-a, pod-b, pod-c]
    runner: quic
    quic: {mode: stream, addr: "$QUIC", alpn: benchtui-echo, request: "FETCH /worlds/default/index.md",
           connection: pooled, insecure_skip_verify: true}
    sweep: {concurrency: [1, 4, 16, 64, 256]}
    warmup: 2s
    duration: 30s
PLAN
"$out/benchtui" run "$out/plan.yaml" --duration "$DUR" -o "$out/artifacts" >"$out/run.txt" 2>"$out/run.err" ||
  { tail -5 "$out/run.err" >&2; exit 1; }
"$out/benchtui" report "$out/artifacts" >"$out/report.md"
awk '/^### Targets/ {on = 1; print; next} on && (/^### / || /^\*\*/) {exit} on' "$out/report.md"
for name in pod-a pod-b pod-c; do
  d=${name//-/_}_dir
  printf '%s: kernel now: usage %s B, inactive_file %s B\n' "$name" \
    "$(cat "${!d}/memory.usage_in_bytes")" "$(awk '$1 == "total_inactive_file" {print $2}' "${!d}/memory.stat")"
done
