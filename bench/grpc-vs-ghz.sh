#!/usr/bin/env bash
# grpc-vs-ghz.sh: benchtui's grpc runner against ghz on the same unary
# method (benchtui.demo.Bench/Echo, static message) of one loopback server
# (benchtui demo-target --grpc), in one run, interleaved: ghz, benchtui,
# ghz, benchtui, … so drift in the machine's load hits both alike.
#
#   bench/grpc-vs-ghz.sh                 # 5 repetitions of 5 s per tool, 50 workers, 1 connection
#   REPS=7 DUR=10 CONC=16 CONNS=4 bench/grpc-vs-ghz.sh
#   PIN=0 bench/grpc-vs-ghz.sh           # not pinned (the default pins when taskset is there:
#                                        # the server on cpu1, each client on cpu0)
#   TEMPLATED=1 bench/grpc-vs-ghz.sh     # a message rendered per call: benchtui's {{seq}},
#                                        # ghz's {{.RequestNumber}}
#
# Both are closed loops of CONC workers over CONNS shared connections
# (ghz -c/--connections, benchtui load.concurrency/grpc.connections), both
# read the method from runners/demo/grpc_bench.proto, plaintext. ghz's
# figure is its JSON report's rps (--duration-stop ignore: the calls cut
# at the end are not counted); benchtui's the artifact's throughput_rps
# (warmup 0s: its connection is opened before the clock). ghz's --cpus
# (GOMAXPROCS) is the client's CPUs, 1 when pinned, as Go sets benchtui's
# from its affinity.
# Generator CPU is user + sys of each tool's process over its whole run
# (time), so requests per CPU-second = requests / (user + sys).
# Needs ghz (go install github.com/bojand/ghz/cmd/ghz@latest, on PATH or in
# $(go env GOPATH)/bin) and jq.
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-5} DUR=${DUR:-5} CONC=${CONC:-50} CONNS=${CONNS:-1} PIN=${PIN:-1} TEMPLATED=${TEMPLATED:-0}
GHZ=$(command -v ghz || echo "$(go env GOPATH)/bin/ghz")
[ -x "$GHZ" ] || { echo "no ghz: go install github.com/bojand/ghz/cmd/ghz@latest" >&2; exit 2; }
command -v jq >/dev/null || { echo "no jq: apt-get install -y jq" >&2; exit 2; }

TMP=$(mktemp -d /tmp/btgrpc.XXXXXX)
SERVER=
cleanup() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SERVER_CPU=() CLIENT_CPU=() CLIENT_CPUS=$(nproc)
if [ "$PIN" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	SERVER_CPU=(taskset -c 1) CLIENT_CPU=(taskset -c 0) CLIENT_CPUS=1
else
	PIN=0
fi

go build -o "$TMP/benchtui" ./cmd/benchtui
PROTO=$PWD/runners/demo/grpc_bench.proto
"${SERVER_CPU[@]}" "$TMP/benchtui" demo-target --http 127.0.0.1:0 --grpc 127.0.0.1:0 >"$TMP/server.out" 2>"$TMP/server.err" &
SERVER=$!
for _ in $(seq 100); do grep -q '^grpc ' "$TMP/server.out" 2>/dev/null && break; sleep 0.1; done
ADDR=$(awk '/^grpc / { print $2 }' "$TMP/server.out")
[ -n "$ADDR" ] || { cat "$TMP/server.err" >&2; exit 1; }

MSG='{"name": "bench", "n": 7}' GHZ_MSG=$MSG
if [ "$TEMPLATED" = 1 ]; then
	MSG='{"name": "u{{seq}}", "n": "{{seq}}"}' GHZ_MSG='{"name": "u{{.RequestNumber}}", "n": "{{.RequestNumber}}"}'
fi
cat >"$TMP/plan.yaml" <<EOF
version: 1
groups:
  - id: echo
    runner: grpc
    grpc:
      target: "$ADDR"
      proto: $PROTO
      connections: $CONNS
      method: benchtui.demo.Bench/Echo
      message: '$MSG'
    load: {concurrency: $CONC}
    warmup: 0s
    duration: ${DUR}s
EOF

# Each function prints "<requests per second> <requests per CPU-second> <errors>".
TIMEFORMAT='%U %S'
ghz_run() {
	local out="$TMP/ghz-$RANDOM"
	{ time "${CLIENT_CPU[@]}" "$GHZ" --insecure --proto "$PROTO" --call benchtui.demo.Bench/Echo -d "$GHZ_MSG" \
		-c "$CONC" --connections "$CONNS" --cpus "$CLIENT_CPUS" -z "${DUR}s" --duration-stop ignore -O json "$ADDR" >"$out" 2>"$out.err"; } 2>"$out.cpu" ||
		{ cat "$out.err" >&2; exit 1; }
	local rps count ok
	read -r rps count ok < <(jq -r '"\(.rps) \(.count) \(.statusCodeDistribution.OK // 0)"' "$out")
	read -r u s <"$out.cpu"
	echo "$rps $(echo "$count / ($u + $s)" | bc -l) $((count - ok))"
}
benchtui_run() {
	local out="$TMP/bt-$RANDOM"
	{ time "${CLIENT_CPU[@]}" "$TMP/benchtui" run "$TMP/plan.yaml" -o "$out" >"$out.log" 2>&1; } 2>"$out.cpu" ||
		{ cat "$out.log" >&2; exit 1; }
	local rps reqs errs
	read -r rps reqs errs < <(jq -r '.steps[0] | "\(.throughput_rps) \(.requests) \(.errors)"' "$out"/echo-*.json)
	read -r u s <"$out.cpu"
	echo "$rps $(echo "$reqs / ($u + $s)" | bc -l) $errs"
}

row() { # label ghz_rps ghz_per_cpu benchtui_rps benchtui_per_cpu errors
	printf '%-6s %10.0f %10.0f %10.0f %10.0f %7.2f %7.2f %s\n' "$1" "$2" "$3" "$4" "$5" \
		"$(echo "$4 / $2" | bc -l)" "$(echo "$5 / $3" | bc -l)" "${6:-}"
}
header() {
	printf '%-6s %10s %10s %10s %10s %7s %7s %s\n' "$1" ghz_rps ghz_rpcpu bt_rps bt_rpcpu r_rps r_cpu "${2:-}"
}
header rep errors
declare -A R
for rep in $(seq "$REPS"); do
	read -r g gc ge < <(ghz_run)
	read -r b bc be < <(benchtui_run)
	R[g]+="$g " R[gc]+="$gc " R[b]+="$b " R[bc]+="$bc "
	R[rr]+="$(echo "$b / $g" | bc -l) " R[rc]+="$(echo "$bc / $gc" | bc -l) "
	row "$rep" "$g" "$gc" "$b" "$bc" "$ge/$be"
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo
echo "median of $REPS, $CONC workers, $CONNS connection(s), ${DUR}s each, templated: $TEMPLATED, pinned: $([ "$PIN" = 1 ] && echo "server cpu1, clients cpu0" || echo no);" \
	"ghz $(go version -m "$GHZ" | awk '$1 == "mod" { print $3 }'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
header median
row median "$(echo "${R[g]}" | median)" "$(echo "${R[gc]}" | median)" "$(echo "${R[b]}" | median)" "$(echo "${R[bc]}" | median)"
echo "median of the per-repetition ratios: rps $(printf %.2f "$(echo "${R[rr]}" | median)"), per CPU-second $(printf %.2f "$(echo "${R[rc]}" | median)")"
