#!/usr/bin/env bash
# startup.sh: what a run costs around its load (issue: "startup is part of
# the run"). Builds benchtui and runs bench/startup against a loopback
# counting server: `benchtui run` to the first request, the largest gap
# between one group's last reply and the next group's first request, the
# last reply to the artifact written and to the exit, for plans of 1 and
# 40 groups, and `benchtui validate` of those plans and of the seed
# examples; then DEMO runs of the built-in demo plan (its groups cut to
# STEP), timed from its --requests log. Medians and ranges over REPS runs,
# in ms.
#
#   bench/startup.sh            # 7 runs of each, 3 of the demo
#   REPS=15 STEP=100ms DEMO=5 bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-7} STEP=${STEP:-200ms} DEMO=${DEMO:-3}
TMP=$(mktemp -d /tmp/btstartup.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

go build -o "$TMP/benchtui" ./cmd/benchtui
go build -o "$TMP/startup" ./bench/startup
# validate resolves the examples' variables: their stand-ins' addresses.
export DEMO_HTTP=127.0.0.1:18080 DEMO_QUIC=127.0.0.1:18443 DEMO_H3=127.0.0.1:18444 BENCHTUI="$TMP/benchtui"
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$TMP/startup" -bin "$TMP/benchtui" -reps "$REPS" -step "$STEP" -demo "$DEMO" \
  -validate examples/seed-000.yaml,examples/seed-002.yaml,examples/seed-003.yaml
