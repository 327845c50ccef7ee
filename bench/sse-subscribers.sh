#!/usr/bin/env bash
# sse-subscribers.sh: SUBS held SSE subscribers (default 100,000) from one
# machine against the demo server on the same machine, past the ephemeral
# port limit by spreading them over SOURCES loopback source addresses
# (issue: "100,000 live subscribers from one box"). Three runs of
# `benchtui run`, each under /usr/bin/time:
#
#   base   1 subscriber: benchtui's own RSS with nothing held
#   held   SUBS subscribers, each sent LIMIT events at RATE a second then
#          a clean end, no reconnect: benchtui's count of events against
#          the server's own (demo_sse_events_sent_total) and SUBS x LIMIT;
#          benchtui's RSS and fds per subscriber, from its artifact's self
#          figures and from /usr/bin/time
#   storm  SUBS subscribers with reconnect, and the server restarted at
#          STORM_AT (the plan's restart action): every stream cut at once,
#          every subscriber back (reconnects = SUBS), the live figures of
#          each second (series) through the storm
#
# Needs an open-files hard limit of about 2.2 x SUBS (the server's fds
# and benchtui's): as root the script raises it; `benchtui doctor` on
# $TMP/held.yaml names each limit and its command otherwise.
#
#   bench/sse-subscribers.sh                 # 100,000 subscribers
#   SUBS=20000 SOURCES=127.0.1.0/31 bench/sse-subscribers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SUBS=${SUBS:-100000} SOURCES=${SOURCES:-127.0.1.0/29} RATE=${RATE:-0.25} LIMIT=${LIMIT:-4}
RAMP=${RAMP:-5000/250ms} STORM_AT=${STORM_AT:-25s} KEEP=${KEEP:-}
TMP=$(mktemp -d /tmp/btsubs.XXXXXX)
server_pid=""
cleanup() {
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
	[ -n "$KEEP" ] && echo "kept $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need=$((SUBS * 22 / 10 + 1024))
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$need" ]; then
	ulimit -Hn "$need" 2>/dev/null || { echo "open files: hard limit $(ulimit -Hn) < $need; as root: ulimit -Hn $need" >&2; exit 2; }
fi
ulimit -Sn "$(ulimit -Hn)"

go build -o "$TMP/benchtui" ./cmd/benchtui
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
addr=127.0.0.1:$port
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $SUBS subscribers from $SOURCES, open files $(ulimit -Sn)"

# plan FILE ID SUBS URL_QUERY RECONNECT TARGET GROUP_LINES: one sse group
# against the server.
plan() {
	cat >"$1" <<EOF
version: 1
targets:
  server: $6
groups:
  - id: $2
    runner: sse
    target: server
    sse:
      url: "http://$addr/events?$4"
      subscribers: $3
      ramp: $RAMP
      sources: [$SOURCES]
      reconnect: $5
      timeout: 30s
$7
EOF
}

# run NAME: benchtui run of $TMP/NAME.yaml, its max RSS in $TMP/NAME.time.
run() {
	/usr/bin/time -f '%M %e %U %S' -o "$TMP/$1.time" \
		"$TMP/benchtui" run "$TMP/$1.yaml" -o "$TMP/$1" >"$TMP/$1.out" 2>"$TMP/$1.err" || {
		echo "benchtui run $1 failed:"; tail -20 "$TMP/$1.err" "$TMP/$1.out"; exit 1
	}
}

# The server of base and held: a demo-target of the script's, attached by
# pid, whose /metrics is read after each run.
"$TMP/benchtui" demo-target --http "$addr" >"$TMP/server.out" 2>"$TMP/server.err" &
server_pid=$!
for _ in $(seq 100); do curl -fs "http://$addr/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
sent() { curl -fs "http://$addr/metrics" | awk '$1 == "demo_sse_events_sent_total" {printf "%d", $2}'; }

attached="{pid: $server_pid}"
plan "$TMP/base.yaml" base 1 "rate=$RATE&limit=$LIMIT" false "$attached" "    duration: 2m"
plan "$TMP/held.yaml" held "$SUBS" "rate=$RATE&limit=$LIMIT" false "$attached" "    duration: 2m"
before=$(sent); run base; after_base=$(sent)
run held; after_held=$(sent)
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# The storm's server is the plan's own target, restarted by its action.
plan "$TMP/storm.yaml" storm "$SUBS" "rate=1" true \
	"{command: [\"$TMP/benchtui\", demo-target, --http, \"$addr\"], ready: \"http://$addr/healthz\", stop_grace: 10s}" \
	"    duration: 45s
    actions: [{at: $STORM_AT, restart: true}]"
run storm

python3 - "$TMP" "$SUBS" "$LIMIT" "$((after_base - before))" "$((after_held - after_base))" <<'EOF'
import json, glob, sys
tmp, subs, limit, sent_base, sent_held = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def art(name):
    return json.load(open(glob.glob(f"{tmp}/{name}/*.json")[0]))
def timed(name):
    rss, wall, user, sys_ = open(f"{tmp}/{name}.time").read().split()
    return int(rss), float(wall), float(user) + float(sys_)
base, held, storm = art("base")["steps"][0], art("held")["steps"][0], art("storm")["steps"][0]
brss, _, _ = timed("base")
hrss, hwall, hcpu = timed("held")
srss, swall, scpu = timed("storm")
self_ = held.get("self") or {}
print(f"held: {held['requests']} events counted by benchtui, {sent_held} sent by the server (its /metrics), "
      f"{subs * limit} = {subs} x {limit} expected; errors {held.get('errors', 0)}; "
      f"in flight at most {held.get('in_flight', {}).get('max')}; counters {held.get('counters')}")
print(f"held: benchtui max RSS {hrss / 1024:.0f} MB (base run {brss / 1024:.0f} MB): "
      f"{(hrss - brss) * 1024 / subs / 1000:.2f} KB per subscriber above the base, {hrss * 1024 / subs / 1000:.2f} KB with it; "
      f"artifact self rss_mb {self_.get('rss_mb')}, fds {self_.get('fds')} "
      f"({(self_.get('fds', {}).get('peak', 0)) / subs:.3f} per subscriber); {hwall:.1f} s, {hcpu:.1f} CPU-s")
tgt = held.get("target") or {}
print(f"held: server rss_mb {tgt.get('rss_mb')}, fds {tgt.get('fds')}")
print(f"storm: errors {storm.get('errors', 0)} {storm.get('error_kinds')}, counters {storm.get('counters')}, "
      f"in flight at most {storm.get('in_flight', {}).get('max')} end {storm.get('in_flight', {}).get('end')}; "
      f"benchtui max RSS {srss / 1024:.0f} MB, {swall:.1f} s, {scpu:.1f} CPU-s")
print("storm: per interval: t (s), events, errors, streams held")
for s in storm.get("series", []):
    print(f"  {s.get('t'):>5} {s.get('rps', 0) * s.get('dt', 0):>8.0f} {s.get('errors', 0):>6} {s.get('in_flight', 0):>7}")
EOF
