# Sourced by the generator comparisons (http-vs-peers.sh, templates.sh):
# builds benchtui into $out and starts its demo-target on SERVER_CPUS
# (default cpu1; SHARE=1 in the callers puts it and the generator on both
# cores), setting server_pid and addr (host:port of /ping and the rest of
# the HTTP API). The caller's EXIT trap kills server_pid.
go build -o "$out/benchtui" ./cmd/benchtui
taskset -c "${SERVER_CPUS:-1}" "$out/benchtui" demo-target --http 127.0.0.1:0 >"$out/server.addr" &
server_pid=$!
for _ in $(seq 50); do grep -q '^http ' "$out/server.addr" 2>/dev/null && break; sleep 0.1; done
addr=$(awk '/^http /{print $2}' "$out/server.addr")
