#!/bin/bash
# console-captures.sh BIN OUTDIR: the console's main screens at 80x24 on the
# demo plan, captured with tmux capture-pane under a private tmux server, for
# docs/console.md: list, detail (ping's second run, with a baseline), compare
# (during and after the run), help, quit-ask (q mid-run) and exit (what is
# printed once the terminal is restored). Every wait is bounded.
set -u
BIN=$1; OUT=$2; SOCK=cons-cap-$$; S=cap$$
mkdir -p "$OUT"; WORK=$(mktemp -d); cd "$WORK"
t() { tmux -L $SOCK "$@"; }
cap() { t capture-pane -p -t $S > "$OUT/$1.txt"; }
waitfor() { # pattern, seconds
  for i in $(seq 1 $(( $2 * 5 ))); do t capture-pane -p -t $S | grep -Eq "$1" && return 0; sleep 0.2; done
  echo "timeout waiting for $1" >&2; t capture-pane -p -t $S >&2; return 1; }
t new-session -d -x 80 -y 24 -s $S -c "$WORK" "NO_COLOR=1 $BIN --duration 4s; sleep 30"
waitfor 'ping' 30; sleep 1; cap list
t send-keys -t $S Enter; waitfor 'pass|✓|✗|done' 60; sleep 1.5
t send-keys -t $S Enter; waitfor 'measure' 30; sleep 2; cap detail
t send-keys -t $S c; sleep 0.6; cap compare
t send-keys -t $S Escape; sleep 0.3; t send-keys -t $S '?'; sleep 0.6; cap help
t send-keys -t $S Escape; sleep 5; t send-keys -t $S c; sleep 0.6; t send-keys -t $S j; t send-keys -t $S j; t send-keys -t $S j; t send-keys -t $S j; t send-keys -t $S j; t send-keys -t $S j; t send-keys -t $S j; sleep 0.6; cap compare-ended
t send-keys -t $S Escape; sleep 0.3; t send-keys -t $S Enter; waitfor 'measure' 30; sleep 1; t send-keys -t $S q; sleep 0.6; cap quit-ask
t send-keys -t $S q; sleep 4; cap exit
t kill-session -t $S 2>/dev/null; rm -rf "$WORK"
