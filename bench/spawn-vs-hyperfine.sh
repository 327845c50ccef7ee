#!/usr/bin/env bash
# spawn-vs-hyperfine.sh: benchtui's spawn runner against `hyperfine -N` on
# the same commands, interleaved: /bin/true and a small Go binary (an empty
# main, built here). Each tool times start to exit of every run, without a
# shell; the figure compared is the median run time.
#
#   bench/spawn-vs-hyperfine.sh               # 5 repetitions of 300 runs per tool and command
#   REPS=7 RUNS=500 WARMUP=50 bench/spawn-vs-hyperfine.sh
#   NICE=-10 CPU=1 bench/spawn-vs-hyperfine.sh  # on a busy box: measured commands at nice -10
#                                               # (root) and both tools pinned to CPU 1 (taskset)
#
# benchtui runs the real headless CLI (`benchtui run`) with a spawn group
# (ready: exit, concurrency 1); its median is the artifact's latency p50.
# hyperfine's is the "median" of its --export-json. Needs hyperfine and jq
# (apt-get install -y hyperfine jq).
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-5} RUNS=${RUNS:-300} WARMUP=${WARMUP:-20} NICE=${NICE:-0} CPU=${CPU:-}
command -v hyperfine >/dev/null || { echo "no hyperfine: apt-get install -y hyperfine" >&2; exit 2; }
command -v jq >/dev/null || { echo "no jq: apt-get install -y jq" >&2; exit 2; }

TMP=$(mktemp -d /tmp/btspawn.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

go build -o "$TMP/benchtui" ./cmd/benchtui
printf 'package main\n\nfunc main() {}\n' >"$TMP/gotrue.go"
(cd "$TMP" && go build -o "$TMP/gotrue" gotrue.go)

declare -A CMD=([true]=/bin/true [gotrue]="$TMP/gotrue")
{
	echo "version: 1"
	echo "groups:"
	for c in true gotrue; do
		echo "  - {id: $c, runner: spawn, spawn: {command: [\"${CMD[$c]}\"], cycles: $RUNS, warmup: $WARMUP, ready: exit}}"
	done
} >"$TMP/plan.yaml"

# measured runs a tool at the chosen niceness, pinned to CPU when given.
measured() {
	if [ -n "$CPU" ]; then nice -n "$NICE" taskset -c "$CPU" "$@"; else nice -n "$NICE" "$@"; fi
}

# Each function prints the median run time of one command in ms.
hyperfine_run() { # command id
	local out="$TMP/hf-$1-$RANDOM.json"
	measured hyperfine -N --style none --warmup "$WARMUP" --runs "$RUNS" --export-json "$out" "${CMD[$1]}" >/dev/null 2>&1
	jq -r '.results[0].median * 1000' "$out"
}
benchtui_run() { # command id
	local out="$TMP/bt-$1-$RANDOM"
	measured "$TMP/benchtui" run "$TMP/plan.yaml" -g "$1" -o "$out" >"$out.log" 2>&1 || { cat "$out.log" >&2; exit 1; }
	jq -r '.steps[0] | if .errors > 0 then error("\(.errors) failed cycles") else .latency_ms.p50 end' "$out"/"$1"-*.json
}

printf '%-4s %-8s %14s %14s %7s\n' rep command hyperfine_ms benchtui_ms ratio
declare -A HF BT RT
for rep in $(seq "$REPS"); do
	for c in true gotrue; do
		# Alternate which tool goes first, so neither always gets the
		# warmer page cache.
		if ((rep % 2)); then
			h=$(hyperfine_run "$c") b=$(benchtui_run "$c")
		else
			b=$(benchtui_run "$c") h=$(hyperfine_run "$c")
		fi
		r=$(echo "$b / $h" | bc -l)
		HF[$c]+="$h " BT[$c]+="$b " RT[$c]+="$r "
		printf '%-4s %-8s %14.3f %14.3f %7.3f\n' "$rep" "$c" "$h" "$b" "$r"
	done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
least() { tr ' ' '\n' | grep -v '^$' | sort -g | head -1; }
echo
echo "$REPS repetitions of $RUNS runs (+$WARMUP warmup), nice $NICE, cpu ${CPU:-any}; $(hyperfine --version); $(go version | cut -d' ' -f3); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median: of the repetitions' medians; paired: median of the per-repetition ratios; best: least median of each tool"
printf '%-8s %14s %14s %7s %7s %10s %10s %7s\n' command hyperfine_ms benchtui_ms ratio paired hf_best_ms bt_best_ms ratio
for c in true gotrue; do
	h=$(echo "${HF[$c]}" | median) b=$(echo "${BT[$c]}" | median)
	hl=$(echo "${HF[$c]}" | least) bl=$(echo "${BT[$c]}" | least)
	p=$(echo "${RT[$c]}" | median)
	printf '%-8s %14.3f %14.3f %7.3f %7.3f %10.3f %10.3f %7.3f\n' "$c" "$h" "$b" "$(echo "$b / $h" | bc -l)" "$p" \
		"$hl" "$bl" "$(echo "$bl / $hl" | bc -l)"
done
