#!/usr/bin/env bash
# sse-subscribers.sh: SUBS live SSE subscribers (default 100,000) from one
# machine against the demo server on the same machine (issue: "100,000
# live subscribers from one box").
#
# Every connection goes to one address and port, 127.0.0.1:PORT, so the
# subscribers spread over SOURCES loopback source addresses (sse.sources:
# one address holds about 28,000 connections to one server). Where one
# process may not open SUBS files (this project's machine: a hard limit of
# 20,000 that root cannot raise), the run is split over SHARDS processes
# of each side: SHARDS benchtui shards of one run (`run --shard`, merged
# by `benchtui merge`), and SHARDS demo-targets sharing the port with
# --reuseport, the kernel dealing the connections among them.
#
#   base   1 subscriber, one process: benchtui's RSS with nothing held
#   held   SUBS subscribers, each sent LIMIT events at RATE a second, then
#          a clean end, no reconnect: benchtui's count of events against
#          the servers' own (each prints its count at exit) and SUBS x
#          LIMIT; benchtui's RSS and fds per subscriber (each shard's
#          /usr/bin/time and artifact, less the base run's RSS)
#   storm  SUBS subscribers with reconnect; at STORM_AT seconds a new set
#          of servers takes the port and the old set stops, ending every
#          stream at once: SUBS reconnects in one wave, every subscriber
#          back, the merged run's figures per interval
#
#   bench/sse-subscribers.sh                      # 100,000 subscribers, 6 shards
#   SUBS=20000 SHARDS=2 bench/sse-subscribers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SUBS=${SUBS:-100000} SHARDS=${SHARDS:-6} SOURCES=${SOURCES:-127.0.1.0/29}
RATE=${RATE:-0.2} LIMIT=${LIMIT:-12} RAMP=${RAMP:-5000/250ms} STORM_AT=${STORM_AT:-50} STORM_FOR=${STORM_FOR:-110s}
KEEP=${KEEP:-}
TMP=$(mktemp -d /tmp/btsubs.XXXXXX)
cleanup() {
	for f in "$TMP"/*.pids; do [ -e "$f" ] && kill $(cat "$f") 2>/dev/null; done
	if [ -n "$KEEP" ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

per=$(((SUBS + SHARDS - 1) / SHARDS))
ulimit -Sn "$(ulimit -Hn)"
if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt $((per + per / 10 + 512)) ]; then
	echo "open files: limit $(ulimit -Sn) per process < $((per + per / 10 + 512)) for $per subscribers a shard: raise SHARDS" >&2
	exit 2
fi

go build -o "$TMP/benchtui" ./cmd/benchtui
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
addr=127.0.0.1:$port
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"$SUBS subscribers from $SOURCES to $addr, $SHARDS shards and servers, open files $(ulimit -Sn) a process"

# start_servers NAME: SHARDS demo-targets on the one port (--reuseport),
# their pids in $TMP/NAME.pids; stop_servers NAME: their end (SIGTERM:
# each ends its streams cleanly, then prints its count of events sent to
# $TMP/NAME.serverI.err).
start_servers() {
	: >"$TMP/$1.pids"
	for i in $(seq 0 $((SHARDS - 1))); do
		"$TMP/benchtui" demo-target --http "$addr" --reuseport >"$TMP/$1.server$i.out" 2>"$TMP/$1.server$i.err" &
		echo $! >>"$TMP/$1.pids"
	done
	for _ in $(seq 100); do curl -fs "http://$addr/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
}
stop_servers() {
	local p
	for p in $(cat "$TMP/$1.pids"); do kill -TERM "$p" 2>/dev/null || true; done
	for p in $(cat "$TMP/$1.pids"); do
		for _ in $(seq 300); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
}
server_pid() { sed -n "$(($2 + 1))p" "$TMP/$1.pids"; }

# plan NAME SUBS QUERY RECONNECT DURATION [watch]: one sse group of SUBS
# against the servers; with watch, each shard watches the server whose
# pid is in SERVER_PID.
plan() {
	{
		echo "version: 1"
		[ -z "${6:-}" ] || printf 'targets:\n  server: {pid: "${SERVER_PID}"}\n'
		cat <<EOF
groups:
  - id: $1
    runner: sse
    sse:
      url: "http://$addr/events?$3"
      subscribers: $2
      ramp: $RAMP
      sources: [$SOURCES]
      reconnect: $4
      timeout: 30s
    duration: $5
EOF
		[ -z "${6:-}" ] || echo "    target: server"
	} >"$TMP/$1.yaml"
}

# shards NAME [SERVERS]: the plan's SHARDS shards at once, each under
# /usr/bin/time (and watching its own of the SERVERS), then their merge
# into $TMP/NAME/merged; the shards start at $start.
shards() {
	local pids=()
	for i in $(seq 0 $((SHARDS - 1))); do
		SERVER_PID=$(server_pid "${2:-$1}" "$i") /usr/bin/time -f '%M %e %U %S' -o "$TMP/$1.$i.time" \
			"$TMP/benchtui" run "$TMP/$1.yaml" --shard "$i/$SHARDS" --run-id "$1" --start-at "$start" \
			-o "$TMP/$1/$i" >"$TMP/$1.$i.out" 2>"$TMP/$1.$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { echo "shard $i of $1 failed:"; tail -20 "$TMP/$1.$i.err"; exit 1; }
	done
	SERVER_PID=1 "$TMP/benchtui" merge $(for i in $(seq 0 $((SHARDS - 1))); do echo "$TMP/$1/$i"; done) \
		--plan "$TMP/$1.yaml" -o "$TMP/$1/merged" >"$TMP/$1.merge.out" 2>&1 ||
		{ echo "merge of $1 failed:"; cat "$TMP/$1.merge.out"; exit 1; }
}

start_servers held
plan base 1 "rate=$RATE&limit=$LIMIT" false 2m watch
SERVER_PID=$(server_pid held 0) /usr/bin/time -f '%M %e %U %S' -o "$TMP/base.time" \
	"$TMP/benchtui" run "$TMP/base.yaml" -o "$TMP/base" >"$TMP/base.out" 2>"$TMP/base.err"
plan held "$SUBS" "rate=$RATE&limit=$LIMIT" false 2m watch
start=$(($(date +%s) + 8))
shards held
stop_servers held

# The storm: at STORM_AT into the step a new set of servers starts on the
# port and the old set stops, ending every stream at once.
start_servers storm
plan storm "$SUBS" "rate=$RATE" true "$STORM_FOR"
start=$(($(date +%s) + 8))
(sleep $((start - $(date +%s) + STORM_AT)); start_servers storm-new; stop_servers storm) &
shards storm
stop_servers storm-new

python3 - "$TMP" "$SUBS" "$LIMIT" "$SHARDS" <<'EOF'
import glob, json, re, sys
tmp, subs, limit, shards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def step(path):
    return json.load(open(glob.glob(f"{path}/*.json")[0]))["steps"][0]
def maxrss_kb(path):
    return int(open(path).read().split()[0])
def sent(name):
    return sum(int(re.search(r"/events sent (\d+) events", open(f).read()).group(1))
               for f in glob.glob(f"{tmp}/{name}.server*.err"))
base_kb = maxrss_kb(f"{tmp}/base.time")
held, storm = step(f"{tmp}/held/merged"), step(f"{tmp}/storm/merged")
rss = [maxrss_kb(f"{tmp}/held.{i}.time") for i in range(shards)]
fds = [step(f"{tmp}/held/{i}")["self"]["fds"]["peak"] for i in range(shards)]
srv0 = step(f"{tmp}/held/0").get("target") or {}  # shard 0 alone watches the targets
above = sum(r - base_kb for r in rss)
print(f"held: events counted {held['requests']}, expected {subs} x {limit} = {subs * limit}; errors {held.get('errors', 0)}; "
      f"streams held at most {held.get('in_flight', {}).get('max')} (the shards' peaks summed); counters {held.get('counters')}")
print(f"held: events sent by the servers {sent('held') - limit} (their count at exit, less the base run's {limit})")
print(f"held: benchtui max RSS per shard {[round(r / 1024) for r in rss]} MB, base run {base_kb / 1024:.0f} MB: "
      f"{above * 1.024 / subs:.2f} KB per subscriber above the base, {sum(rss) * 1.024 / subs:.2f} KB with {shards} bases")
print(f"held: benchtui fds at peak {fds}: {sum(fds) / subs:.3f} per subscriber; server 0 (watched by shard 0): fds {srv0.get('fds')}, rss_mb {srv0.get('rss_mb')}")
print(f"storm: events counted {storm['requests']}, errors {storm.get('errors', 0)} {storm.get('error_kinds')}, counters {storm.get('counters')}, "
      f"streams held at most {storm.get('in_flight', {}).get('max')}, at the end {storm.get('in_flight', {}).get('end')}")
print(f"storm: events sent by the servers {sent('storm') + sent('storm-new')} (the old set's and the new's; those in flight when the step ended were not counted)")
print("storm, merged, per interval: t (s), events/s, errors, streams held")
for s in storm.get("series", []):
    print(f"  {s.get('t'):>7.2f} {s.get('rps', 0):>9.0f} {s.get('errors', 0):>6} {s.get('in_flight', 0):>7}")
EOF
