#!/usr/bin/env bash
# kube-controlplane.sh: benchtui's Kubernetes Job (`benchtui kube manifest`,
# `benchtui kube run`, `merge k8s:`, `watch k8s:`) against a REAL API server
# and Job controller on this machine: etcd, kube-apiserver and
# kube-controller-manager on 127.0.0.1, with no kubelet, no scheduler and no
# container runtime.
#
# Sections 1-5 play the kubelet by hand: they patch the pods' status
# (Running + Ready, then Succeeded, or Failed with exit code 3) and check
# what the real Job controller and `kube run` make of it; no shard runs, so
# `kube run`'s merge (kubectl logs) finds no logs and says so.
#
# Section 6 runs the whole flow end to end on loopback: a stand-in kubelet
# (bench/kube-standin.py) starts the real benchtui for each pod the Job
# controller creates, from the pod's spec (args, env, secretKeyRef read from
# the Secret, the ConfigMap's files), its container paths rewritten to a
# folder per pod; it saves each pod's stdout+stderr as a container log,
# plays the readiness probe (the pod's ready file) and patches the pod
# Running/Ready, then Succeeded/Failed with the process's real exit code. A
# kubectl wrapper (`--kubectl`) answers `kubectl logs [-f] -l job-name=JOB
# --prefix` of those pods from the saved logs. The 3 shards load a counting
# HTTP server on 127.0.0.1; `kube run` merges the artifacts the shards
# framed in their logs, and the script checks the merged request count
# against the server's own count, the shard block, the series and .hlog,
# `report`, and `watch k8s:` during the run (shards 3/3). Then a shard whose
# clock runs 60 s ahead (it exits 3 before it is ready: the Job controller
# fails the Job and kube run says so at once) and a shard killed mid-run
# (exit 137: the Job fails, kube run exits 1 with the --allow-partial hint,
# whose merge finds only what a real cluster keeps: the pods not deleted).
# Still not shown here: a container runtime (images, cgroups, resource
# limits), the scheduler (nodes, the topology spread), kubelet-run probes
# and graceful deletion (the pods are never bound to a node, so a deleted
# pod is gone at once and the stand-in stops its process after), and the
# kubelet's own log files and rotation; the script plays those parts.
#
#   bench/kube-controlplane.sh
#   K8S_VERSION=v1.36.3 CACHE=/var/cache/bk KEEP=1 bench/kube-controlplane.sh
#
# Opt-in, not in CI: the first run builds kube-apiserver,
# kube-controller-manager and kubectl from the k8s.io/kubernetes Go module
# into the cache and reuses them on later runs. Measured on this project's
# 2-core machine (shared with other jobs): 516 s for the first build, module
# downloads included (about 300 MB of binaries); 24 s to rebuild into an
# empty CACHE with Go's build cache warm; then a run of the checks takes
# about 4 minutes (three `kube run`s of about 30 s each with patched pods,
# then three with the stand-in kubelet).
#
# Knobs (environment):
#   K8S_VERSION  k8s.io/kubernetes version to build (default v1.37.2, the
#                k8s.io/api benchtui's tests check the manifest with; its go.mod
#                wants go 1.26)
#   CACHE        where the builds go (default ${XDG_CACHE_HOME:-$HOME/.cache}/benchtui-kube)
#   KUBECTL      a kubectl to use instead of building one
#   ETCD         the etcd server binary (default: Debian's etcd-server, installed
#                with apt-get when missing)
#   KEEP=1       keep $TMP (logs of etcd, kube-apiserver, kube-controller-manager,
#                kube run's output) even when every check passes; a failing run
#                always keeps it
#   BUILD_ONLY=1 build (or find in the cache) and exit
#   BUILD_P      go build -p (default 2)
#
# etcd: Debian's etcd-server (3.4.23 on bookworm) is used as it is, not
# built: kube-apiserver v1.37 accepts it and all its storage works; it only
# logs that the endpoint lacks RequestWatchProgress (etcd >= 3.4.31/3.5.13),
# so the apiserver serves consistent lists from etcd, not from its watch
# cache. Nothing checked here depends on that.
#
# Prints PASS/FAIL per check and exits 1 when any check fails. Every process
# it starts is stopped by its PID on exit. Only 127.0.0.1 is listened on and
# talked to (the service CIDR the apiserver needs is never sent anything:
# there is no kube-proxy and no pod network; the shards the stand-in
# kubelet runs load 127.0.0.1). Needs python3 and jq.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

K8S_VERSION=${K8S_VERSION:-v1.37.2}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchtui-kube}
BUILD_ONLY=${BUILD_ONLY:-0}
KEEP=${KEEP:-0}

# ---------------------------------------------------------------- build
# k8s.io/kubernetes cannot be `go install`ed (its go.mod replaces every
# k8s.io/* staging module with ./staging/src/...), so a throwaway module in
# the cache requires k8s.io/kubernetes $K8S_VERSION and replaces each staging
# module it requires at v0.0.0 with the published v0.MINOR.PATCH.
BIN=$CACHE/$K8S_VERSION/bin
build_k8s() {
	local mod=$CACHE/$K8S_VERSION/mod stage=v0.${K8S_VERSION#v1.}
	if [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-controller-manager" ] && [ -x "$BIN/kubectl" ]; then
		return
	fi
	mkdir -p "$mod" "$BIN"
	echo "building kube-apiserver, kube-controller-manager, kubectl $K8S_VERSION in $mod (log $CACHE/$K8S_VERSION/build.log)" >&2
	(
		set -euo pipefail
		cd "$mod"
		export GOFLAGS=-mod=mod GOWORK=off GOTOOLCHAIN=local
		start=$(date +%s)
		[ -f go.mod ] || go mod init benchtui-kube-build
		go mod edit -require="k8s.io/kubernetes@$K8S_VERSION"
		kmod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
		[ -n "$kmod" ] || { echo "cannot download k8s.io/kubernetes@$K8S_VERSION" >&2; exit 1; }
		grep -E '^go ' "$kmod"
		# the staging modules: k8s.io/X required at v0.0.0 and replaced by ./staging/src/k8s.io/X
		for m in $(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\1#p' "$kmod"); do
			grep -qE "^[[:space:]]+$m v0\.0\.0" "$kmod" || continue
			go mod edit -replace="$m=$m@$stage" -require="$m@$stage"
		done
		cat >tools.go <<-'EOF'
			//go:build tools

			package tools

			import (
				_ "k8s.io/kubernetes/cmd/kube-apiserver"
				_ "k8s.io/kubernetes/cmd/kube-controller-manager"
				_ "k8s.io/kubernetes/cmd/kubectl"
			)
		EOF
		go mod tidy -e -tags tools >/dev/null 2>&1 || true
		minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
		ld="-s -w"
		for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
			ld="$ld -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
		done
		mkdir -p "$BIN.new"
		go build -p "${BUILD_P:-2}" -trimpath -ldflags="$ld" -o "$BIN.new/" \
			k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl
		mv "$BIN.new"/* "$BIN/" && rmdir "$BIN.new"
		echo "build took $(($(date +%s) - start)) s"
	) >>"$CACHE/$K8S_VERSION/build.log" 2>&1 || { echo "build failed: tail of $CACHE/$K8S_VERSION/build.log:" >&2; tail -30 "$CACHE/$K8S_VERSION/build.log" >&2; return 1; }
	grep 'build took' "$CACHE/$K8S_VERSION/build.log" | tail -1 >&2
}

mkdir -p "$CACHE/$K8S_VERSION"
build_k8s

[ "$BUILD_ONLY" = 1 ] && exit 0
KUBECTL=${KUBECTL:-$BIN/kubectl}

# ---------------------------------------------------------------- tools
if [ -z "${ETCD:-}" ]; then
	if ! command -v etcd >/dev/null; then
		echo "no etcd: installing Debian's etcd-server" >&2
		sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get update -qq >/dev/null
		$sudo apt-get install -y -qq etcd-server >/dev/null
	fi
	ETCD=$(command -v etcd)
fi
command -v openssl >/dev/null || { echo "no openssl: apt-get install openssl" >&2; exit 2; }
command -v python3 >/dev/null || { echo "no python3 (free ports, the stand-in kubelet, the counting server)" >&2; exit 2; }
command -v jq >/dev/null || { echo "no jq: apt-get install jq" >&2; exit 2; }

TMP=$(mktemp -d /tmp/btkube.XXXXXX)
PIDS=()
FAILED=0
cleanup() {
	local pid i
	[ -z "${NAP_PID:-}" ] || kill "$NAP_PID" 2>/dev/null || true
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
		pid=${PIDS[i]}
		kill -TERM "$pid" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	# the shards the stand-in kubelet started (it stops them itself on
	# SIGTERM): any left, by the pid it saved, if still benchtui
	for f in "$TMP"/kubelet/*/pid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$TMP/benchtui" ] && kill -KILL "$pid" 2>/dev/null || true
	done
	if [ "$FAILED" != 0 ] || [ "$KEEP" = 1 ]; then
		echo "logs kept in $TMP (etcd.log, kube-apiserver.log, kube-controller-manager.log, kuberun-*.out/err)"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'FAILED=1; exit 130' INT TERM

# nap SECONDS: a sleep that a signal interrupts (the trap runs at once)
NAP_PID=
nap() { sleep "$1" & NAP_PID=$!; wait $NAP_PID || true; NAP_PID=; }
pass() { printf 'PASS %s\n' "$1"; }
fail() { printf 'FAIL %s%s\n' "$1" "${2:+: $2}"; FAILED=1; }
check() { # check NAME CMD...: PASS when CMD succeeds
	local name=$1; shift
	if "$@" >"$TMP/check.out" 2>&1; then pass "$name"; else fail "$name" "$(tail -5 "$TMP/check.out" | tr '\n' ' ')"; fi
}
# wait_for SECONDS CMD...: retry CMD every 0.5 s until it succeeds or SECONDS pass
wait_for() {
	local until=$((SECONDS + $1)); shift
	while ! "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $until ] || return 1
		nap 0.5
	done
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start() { # start NAME CMD...: run CMD in the background, log to $TMP/NAME.log
	local name=$1; shift
	"$@" >"$TMP/$name.log" 2>&1 &
	PIDS+=($!)
	echo "started $name (pid $!)" >&2
}
alive() { kill -0 "$1" 2>/dev/null; }

# ---------------------------------------------------------------- certificates
cd "$TMP"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=benchtui-kube-test-ca \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
	-keyout ca.key -out ca.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver -keyout apiserver.key -out apiserver.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' >apiserver.ext
openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile apiserver.ext -out apiserver.crt 2>/dev/null
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
TOKEN=$(openssl rand -hex 24)
echo "$TOKEN,admin,admin-uid,system:masters" >tokens.csv
cd "$ROOT"

# ---------------------------------------------------------------- control plane
ETCD_PORT=$(free_port) PEER_PORT=$(free_port) API_PORT=$(free_port) KCM_PORT=$(free_port)
start etcd "$ETCD" --name bt --data-dir "$TMP/etcd" \
	--listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
	--listen-peer-urls "http://127.0.0.1:$PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
	--initial-cluster "bt=http://127.0.0.1:$PEER_PORT"
ETCD_PID=${PIDS[-1]}
etcd_up() { python3 -c "import urllib.request,sys; sys.exit(0 if b'true' in urllib.request.urlopen('http://127.0.0.1:$ETCD_PORT/health', timeout=2).read() else 1)"; }
wait_for 30 etcd_up || { fail "etcd healthy on 127.0.0.1:$ETCD_PORT"; exit 1; }

start kube-apiserver "$BIN/kube-apiserver" \
	--etcd-servers "http://127.0.0.1:$ETCD_PORT" \
	--bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
	--tls-cert-file "$TMP/apiserver.crt" --tls-private-key-file "$TMP/apiserver.key" --cert-dir "$TMP/certs" \
	--token-auth-file "$TMP/tokens.csv" --authorization-mode RBAC \
	--service-account-issuer "https://127.0.0.1:$API_PORT" --api-audiences "https://127.0.0.1:$API_PORT" \
	--service-account-key-file "$TMP/sa.pub" --service-account-signing-key-file "$TMP/sa.key" \
	--service-cluster-ip-range 10.0.0.0/24 --endpoint-reconciler-type none \
	--profiling=false --v 1
API_PID=${PIDS[-1]}

KCFG=$TMP/kubeconfig
cat >"$KCFG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: bt
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$TMP/ca.crt"}
users:
- name: admin
  user: {token: "$TOKEN"}
contexts:
- name: bt
  context: {cluster: bt, user: admin}
current-context: bt
EOF
export KUBECONFIG=$KCFG
NS=bench
k() { timeout 30 "$KUBECTL" -n "$NS" "$@"; }
if wait_for 90 k get --raw /readyz; then pass "kube-apiserver $K8S_VERSION /readyz on 127.0.0.1:$API_PORT (etcd $("$ETCD" --version | sed -n 's/^etcd Version: //p'))"
else fail "kube-apiserver /readyz" "$(tail -3 "$TMP/kube-apiserver.log" | tr '\n' ' ')"; exit 1; fi

start kube-controller-manager "$BIN/kube-controller-manager" \
	--kubeconfig "$KCFG" --leader-elect=false \
	--bind-address 127.0.0.1 --secure-port "$KCM_PORT" \
	--service-account-private-key-file "$TMP/sa.key" --root-ca-file "$TMP/ca.crt" \
	--controllers '*' --profiling=false --v 1
KCM_PID=${PIDS[-1]}

k create namespace "$NS" >/dev/null
# the ServiceAccount admission plugin admits a pod once its namespace has the
# default ServiceAccount, which the controller manager's serviceaccount
# controller creates
if wait_for 60 k get serviceaccount default; then pass "kube-controller-manager up: namespace $NS has its default ServiceAccount"
else fail "kube-controller-manager: no default ServiceAccount in $NS" "$(tail -3 "$TMP/kube-controller-manager.log" | tr '\n' ' ')"; exit 1; fi

# ---------------------------------------------------------------- benchtui
go build -o "$TMP/benchtui" ./cmd/benchtui
BT=$TMP/benchtui
# a group with a data file (a second ConfigMap key), a plain variable (set
# in the Job) and one named like a secret (read from the Secret); its
# target is never sent anything: no pod runs
cat >"$TMP/plan.yaml" <<'EOF'
version: 1
groups:
  - id: ping
    runner: http
    data: {file: rows.csv}
    http: {requests: [{url: "http://${BT_KUBE_HOST}/ping/{{.id}}", headers: {Authorization: "Bearer ${BT_KUBE_TOKEN}"}}]}
    load: {rate: 30, max_in_flight: 3}
    duration: 2s
EOF
printf 'id\n1\n2\n3\n' >"$TMP/rows.csv"
export BT_KUBE_HOST=127.0.0.1:9 BT_KUBE_TOKEN=not-a-real-token
k create secret generic bench-secrets --from-literal=BT_KUBE_TOKEN=$BT_KUBE_TOKEN >/dev/null
IMAGE=benchtui.invalid/benchtui:test # never pulled: no kubelet
# the flags of every kube manifest and kube run below
KARGS=(-g ping --shards 3 --image "$IMAGE" --namespace "$NS" --cpu 100m --memory 64Mi --secret bench-secrets)

# pods of a Job, one line each: INDEX POD
pods_of() { k get pods -l "batch.kubernetes.io/job-name=$1" -o jsonpath='{range .items[*]}{.metadata.annotations.batch\.kubernetes\.io/job-completion-index} {.metadata.name}{"\n"}{end}' | sort -n; }
pod_at() { pods_of "$1" | awk -v i="$2" '$1 == i {print $2}'; }
have_pods() { [ "$(pods_of "$1" | wc -l)" -ge "$2" ]; }
job_field() { k get job "$1" -o jsonpath="$2"; }
job_is() { # job_is JOB TYPE [REASON]: the Job has condition TYPE=True (with REASON)
	local c
	c=$(job_field "$1" "{range .status.conditions[?(@.type==\"$2\")]}{.status} {.reason}{end}")
	[ "${c%% *}" = True ] && { [ -z "${3:-}" ] || [ "${c#* }" = "$3" ]; }
}
ready_is() { [ "$(job_field "$1" '{.status.ready}')" = "$2" ]; }
set_ready() { # the kubelet's part: the pod runs and its readiness probe passes
	local now; now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	k patch pod "$1" --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Running\",\"startTime\":\"$now\",
		\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"$now\"},{\"type\":\"ContainersReady\",\"status\":\"True\",\"lastTransitionTime\":\"$now\"}],
		\"containerStatuses\":[{\"name\":\"shard\",\"image\":\"$IMAGE\",\"imageID\":\"\",\"ready\":true,\"restartCount\":0,\"started\":true,\"state\":{\"running\":{\"startedAt\":\"$now\"}}}]}}" >/dev/null
}
set_ended() { # set_ended POD PHASE EXITCODE: the shard's container exited
	local now; now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	k patch pod "$1" --subresource=status --type=merge -p "{\"status\":{\"phase\":\"$2\",
		\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"lastTransitionTime\":\"$now\"},{\"type\":\"ContainersReady\",\"status\":\"False\",\"lastTransitionTime\":\"$now\"}],
		\"containerStatuses\":[{\"name\":\"shard\",\"image\":\"$IMAGE\",\"imageID\":\"\",\"ready\":false,\"restartCount\":0,\"started\":false,\"state\":{\"terminated\":{\"exitCode\":$3,\"reason\":\"$([ "$3" = 0 ] && echo Completed || echo Error)\",\"startedAt\":\"$now\",\"finishedAt\":\"$now\"}}}]}}" >/dev/null
}
all_pods() { pods_of "$1" | awk '{print $2}'; }

# 1. the manifest
START=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
manifest() { "$BT" kube manifest "$TMP/plan.yaml" "${KARGS[@]}" --start-at "$START" --run-id "$1" >"$TMP/$1.yaml" && grep -q 'completionMode: Indexed' "$TMP/$1.yaml"; }
check "kube manifest --shards 3 prints a ConfigMap and an Indexed Job" manifest ok1
J1=benchtui-ping-ok1

# 2. the real API server's validation
check "kubectl apply --dry-run=server accepts the manifest (podFailurePolicy, backoffLimitPerIndex, maxFailedIndexes, readinessProbe, topologySpreadConstraints)" \
	k apply --dry-run=server --validate=strict -f "$TMP/ok1.yaml"
check "kubectl apply creates the ConfigMap and the Job" k apply -f "$TMP/ok1.yaml"
kept() {
	local got want='0 0 FailJob 3 Indexed 3 3 BT_KUBE_HOST=127.0.0.1:9 BT_KUBE_TOKEN<bench-secrets/BT_KUBE_TOKEN'
	got=$(k get job $J1 -o jsonpath='{.spec.backoffLimitPerIndex} {.spec.maxFailedIndexes} {.spec.podFailurePolicy.rules[0].action} {.spec.podFailurePolicy.rules[0].onExitCodes.values[0]} {.spec.completionMode} {.spec.completions} {.spec.parallelism} {.spec.template.spec.containers[0].env[0].name}={.spec.template.spec.containers[0].env[0].value} {.spec.template.spec.containers[0].env[1].name}<{.spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef.name}/{.spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef.key}')
	[ "$got" = "$want" ] || { echo "got '$got', want '$want'"; return 1; }
	[ "$(k get configmap $J1 -o jsonpath='{.data.rows\.csv}')" = "$(cat "$TMP/rows.csv")" ] || { echo "the ConfigMap's rows.csv differs"; return 1; }
}
check "the server kept every field (backoffLimitPerIndex 0, maxFailedIndexes 0, FailJob on exit 3, env and secretKeyRef, the data file in the ConfigMap)" kept

# 3. the Job controller
if wait_for 30 have_pods $J1 3; then
	idx=$(pods_of $J1 | awk '{print $1}' | tr '\n' ' ')
	if [ "$idx" = "0 1 2 " ]; then pass "the Job controller created 3 pods with completion indexes 0 1 2"; else fail "the pods' completion indexes" "$idx"; fi
else
	fail "the Job controller created 3 pods" "$(pods_of $J1 | wc -l) pods; $(grep -i job "$TMP/kube-controller-manager.log" | tail -2 | tr '\n' ' ')"
fi
bad=""
for i in 0 1 2; do
	p=$(pod_at $J1 $i)
	[ -n "$p" ] || { bad="$bad no pod $i;"; continue; }
	got=$(k get pod "$p" -o jsonpath='{.spec.hostname} {.metadata.labels.batch\.kubernetes\.io/job-completion-index} {range .spec.containers[0].env[?(@.name=="JOB_COMPLETION_INDEX")]}{.valueFrom.fieldRef.fieldPath}{end} {.spec.containers[0].args[5]}')
	want="$J1-$i $i metadata.labels['batch.kubernetes.io/job-completion-index'] /3"
	[ "$got" = "$want" ] || bad="$bad pod $i: '$got', want '$want';"
done
if [ -z "$bad" ]; then pass "each pod: hostname JOB-INDEX, label and \$JOB_COMPLETION_INDEX from it, args --shard /3"; else fail "the pods' index fields" "$bad"; fi

for p in $(all_pods $J1); do set_ready "$p"; done
if wait_for 30 ready_is $J1 3; then pass "3 pods patched Running and Ready: the Job's status.ready is 3"
else fail "status.ready after 3 pods Ready" "ready=$(job_field $J1 '{.status.ready}')"; fi
for p in $(all_pods $J1); do set_ended "$p" Succeeded 0; done
if wait_for 30 job_is $J1 Complete; then pass "3 pods Succeeded (exit 0): the Job is Complete, status.succeeded $(job_field $J1 '{.status.succeeded}')"
else fail "Job Complete after 3 pods Succeeded" "$(job_field $J1 '{.status}')"; fi

# a shard that missed the start exits 3: the pod failure policy fails the Job
if manifest fail3; then check "a second Job (shard 1 will exit 3) applies" k apply -f "$TMP/fail3.yaml"; else fail "kube manifest of the second Job"; fi
J2=benchtui-ping-fail3
if wait_for 30 have_pods $J2 3; then
	for p in $(all_pods $J2); do set_ready "$p"; done
	set_ended "$(pod_at $J2 1)" Failed 3
	if wait_for 30 job_is $J2 Failed PodFailurePolicy; then
		pass "one pod Failed with exit code 3: the Job is Failed, reason PodFailurePolicy ($(job_field $J2 '{.status.conditions[?(@.type=="Failed")].message}'))"
	else
		fail "Job Failed by the pod failure policy" "$(job_field $J2 '{.status.conditions}')"
	fi
	# the Job controller deletes the other shards' pods (not scheduled: gone at once)
	if wait_for 30 sh -c "[ -z \"\$(timeout 30 '$KUBECTL' -n $NS get pods -l batch.kubernetes.io/job-name=$J2 --field-selector=status.phase!=Failed -o name)\" ]"; then
		pass "the failed Job's other shards' pods are deleted"
	else fail "the failed Job's other pods deleted" "$(k get pods -l batch.kubernetes.io/job-name=$J2 --no-headers 2>&1 | tr '\n' ' ')"; fi
else
	fail "the second Job's 3 pods" "$(pods_of $J2 | wc -l) pods"
fi

# 4. kube run: every shard ready in time, then Complete (or Failed: a shard exits 3)
START_IN=30 READY_BY=10
kuberun() { # kuberun RUNID: kube run in the background; its pid in KR_PID
	"$BT" kube run "$TMP/plan.yaml" "${KARGS[@]}" --run-id "$1" --start-in ${START_IN}s --ready-by ${READY_BY}s --timeout 60s --kubectl "$KUBECTL" \
		-o "$TMP/merged-$1" >"$TMP/kuberun-$1.out" 2>"$TMP/kuberun-$1.err" &
	KR_PID=$!
	PIDS+=($KR_PID)
	KR_T0=$SECONDS
}
kr_wait() { # kr_wait SECONDS: kube run's exit code in KR_RC (124 when it still runs then)
	local until=$((SECONDS + $1))
	KR_RC=0
	while alive $KR_PID; do
		[ $SECONDS -lt $until ] || { KR_RC=124; return; }
		nap 0.5
	done
	wait $KR_PID || KR_RC=$?
}
# all_ready_then RUNID END: kube run RUNID, all 3 pods patched Ready before
# the cutoff, checked past it, then END: "succeed" (every pod exits 0) or
# "exit3" (pod 1 exits 3, the others still run); kube run's exit code in rc
all_ready_then() {
	local run=$1 end=$2 job=benchtui-ping-$1 nap p
	kuberun "$run"
	if ! wait_for 20 have_pods "$job" 3; then
		fail "kube run's Job $job has 3 pods" "$(cat "$TMP/kuberun-$run.err" | tr '\n' ' ')"
		kill $KR_PID 2>/dev/null || true
		rc=none
		return
	fi
	for p in $(all_pods "$job"); do set_ready "$p"; done
	# past the readiness cutoff (start - ready-by) and a poll of kube run
	nap=$((START_IN - READY_BY - (SECONDS - KR_T0) + 4))
	[ $nap -le 0 ] || nap $nap
	if alive $KR_PID && k get job "$job" >/dev/null 2>&1; then
		pass "kube run ($run): 3 of 3 shards ready before the cutoff, the Job is kept (kube run waits for it to end)"
	else
		fail "kube run ($run) past the readiness gate" "$(cat "$TMP/kuberun-$run.err" | tr '\n' ' ')"
	fi
	if [ "$end" = succeed ]; then
		for p in $(all_pods "$job"); do set_ended "$p" Succeeded 0; done
	else
		set_ended "$(pod_at "$job" 1)" Failed 3
	fi
	kr_wait 30; rc=$KR_RC
}
all_ready_then ready succeed
J3=benchtui-ping-ready
if [ "$rc" != none ]; then
	err=$TMP/kuberun-ready.err
	if grep -q "job $J3: Complete (3 of 3 shards succeeded)" "$err" && grep -q "^live: benchtui watch k8s:$NS/$J3 --console" "$err"; then
		pass "kube run: the Job Complete: '$(grep "job $J3: Complete" "$err")'"
	else
		fail "kube run to Complete" "exit $rc; $(cat "$err" "$TMP/kuberun-ready.out" | tr '\n' ' ')"
	fi
	# then kube run merges the shards' artifacts from the pods' logs (kubectl
	# logs): without a kubelet there are none, so the merge must fail saying so
	if [ "$rc" = 2 ] && grep -q "benchtui merge: k8s:$NS/$J3: kubectl logs -l job-name=$J3 printed nothing" "$err" && [ ! -e "$TMP/merged-ready" ]; then
		pass "kube run: its merge of the pods' logs (none without a kubelet) fails naming the Job, exit 2, nothing written"
	else
		fail "kube run's merge with no logs" "exit $rc; $(cat "$err" | tr '\n' ' ')"
	fi
fi

all_ready_then exit3 exit3
J5=benchtui-ping-exit3
if [ "$rc" != none ]; then
	if [ "$rc" = 1 ] && grep -q "job $J5: Failed (0 of 3 shards succeeded): PodFailurePolicy: Container shard for pod .* failed with exit code 3" "$TMP/kuberun-exit3.err" &&
		grep -q "^what the shards measured: benchtui merge k8s:$NS/$J5 --allow-partial" "$TMP/kuberun-exit3.err"; then
		pass "kube run: a shard exits 3, the Job Failed, exit 1: '$(grep "job $J5: Failed" "$TMP/kuberun-exit3.err")'"
	else
		fail "kube run to Failed" "exit $rc; $(cat "$TMP/kuberun-exit3.err" "$TMP/kuberun-exit3.out" | tr '\n' ' ')"
	fi
fi

# 5. kube run: 1 of 3 shards ready: the Job and its ConfigMap are deleted before the start
kuberun notready
J4=benchtui-ping-notready
if wait_for 20 have_pods $J4 3; then
	set_ready "$(pod_at $J4 0)"
	kr_wait $((START_IN + 20)); rc=$KR_RC
	took=$((SECONDS - KR_T0))
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ $took -lt $START_IN ] && grep -q "1 of 3 shards ready" "$TMP/kuberun-notready.err"; then
		pass "kube run: 1 of 3 shards ready, exit $rc after ${took}s (start at ${START_IN}s): '$(grep "shards ready" "$TMP/kuberun-notready.err")'"
	else
		fail "kube run with 1 of 3 ready" "exit $rc after ${took}s; $(cat "$TMP/kuberun-notready.err" | tr '\n' ' ')"
	fi
	if out=$(k get job $J4 2>&1); then fail "the not-ready Job is deleted" "$out"
	elif grep -q NotFound <<<"$out"; then pass "kubectl get job $J4: NotFound"
	else fail "kubectl get job $J4" "$out"; fi
	if out=$(k get configmap $J4 2>&1); then fail "the not-ready Job's ConfigMap is deleted" "$out"
	elif grep -q NotFound <<<"$out"; then pass "kubectl get configmap $J4: NotFound"
	else fail "kubectl get configmap $J4" "$out"; fi
	if wait_for 30 sh -c "[ -z \"\$(timeout 30 '$KUBECTL' -n $NS get pods -l batch.kubernetes.io/job-name=$J4 -o name)\" ]"; then
		pass "the deleted Job's pods are collected"
	else fail "the deleted Job's pods collected" "$(k get pods -l batch.kubernetes.io/job-name=$J4 --no-headers 2>&1 | tr '\n' ' ')"; fi
else
	fail "kube run's second Job has 3 pods" "$(cat "$TMP/kuberun-notready.err" | tr '\n' ' ')"
	kill $KR_PID 2>/dev/null || true
fi

# 6. the whole flow: a stand-in kubelet runs each pod's shard for real
# (bench/kube-standin.py: the pod's args, env and ConfigMap, its paths
# rewritten to a folder per pod, its stdout+stderr saved as a container log,
# the readiness probe played and the pod's status patched from the real
# process: Running, Ready, then Succeeded/Failed with its exit code), and a
# kubectl wrapper answers `kubectl logs` of those pods from the saved logs.
# The load goes to a counting HTTP server on 127.0.0.1.
KL_ROOT=$TMP/kubelet
mkdir -p "$KL_ROOT"
WRAP=$TMP/kubectl-standin
cat >"$WRAP" <<EOF
#!/bin/sh
# kubectl, but \`logs\` of the pods the stand-in kubelet ran comes from their saved logs
for a in "\$@"; do [ "\$a" = logs ] && exec python3 "$ROOT/bench/kube-standin.py" logs "$KUBECTL" "$KL_ROOT" "\$@"; done
exec "$KUBECTL" "\$@"
EOF
chmod +x "$WRAP"
cat >"$TMP/counter.py" <<'EOF'
# counts the requests it serves; GET /count prints the counts (not counted)
import http.server, json, sys, threading
lock, n = threading.Lock(), {"requests": 0, "authorized": 0, "paths": {}}
want = "Bearer " + sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        if self.path == "/count":
            with lock:
                body = json.dumps(n).encode()
        else:
            with lock:
                n["requests"] += 1
                n["authorized"] += self.headers.get("Authorization") == want
                n["paths"][self.path] = n["paths"].get(self.path, 0) + 1
            body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
s.daemon_threads = True
s.serve_forever()
EOF
CPORT=$(free_port)
start counter python3 "$TMP/counter.py" "$CPORT" "$BT_KUBE_TOKEN"
count() { python3 -c "import urllib.request,json,sys; d=json.load(urllib.request.urlopen('http://127.0.0.1:$CPORT/count', timeout=5)); print(d[sys.argv[1]] if sys.argv[1] != 'paths' else ' '.join(sorted(d['paths'])))" "$1"; }
wait_for 10 count requests || fail "the counting server on 127.0.0.1:$CPORT"
cat >"$TMP/e2e.yaml" <<'EOF'
version: 1
groups:
  - id: load
    runner: http
    data: {file: rows.csv}
    http: {requests: [{url: "http://${BT_KUBE_HOST}/ping/{{.id}}", headers: {Authorization: "Bearer ${BT_KUBE_TOKEN}"}}]}
    load: {rate: 300, max_in_flight: 30}
    duration: 4s
    thresholds: {error_rate: 0, p99: 5s}   # generous: the python counter is the bottleneck on a busy 2-core machine
EOF
E2E_START_IN=25
# e2e_run RUNID KUBELET-FLAGS...: a stand-in kubelet for the Job, then kube
# run (--kubectl the wrapper) in the background; pids in KL_PID and KR_PID
e2e_run() {
	local run=$1; shift
	start "kubelet-$run" python3 "$ROOT/bench/kube-standin.py" kubelet --root "$KL_ROOT" --job "benchtui-load-$run" \
		--namespace "$NS" --kubectl "$KUBECTL" --exec "$BT" --timeout 150 "$@"
	KL_PID=${PIDS[-1]}
	BT_KUBE_HOST=127.0.0.1:$CPORT "$BT" kube run "$TMP/e2e.yaml" -g load --shards 3 --image "$IMAGE" --namespace "$NS" \
		--cpu 100m --memory 64Mi --secret bench-secrets --run-id "$run" --start-in ${E2E_START_IN}s --ready-by 10s \
		--timeout 90s --kubectl "$WRAP" -o "$TMP/merged-$run" >"$TMP/kuberun-$run.out" 2>"$TMP/kuberun-$run.err" &
	KR_PID=$!
	PIDS+=($KR_PID)
	KR_T0=$SECONDS
}
stop_pid() { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

J6=benchtui-load-e2e
e2e_run e2e
if wait_for 20 ready_is $J6 3; then
	pass "stand-in kubelet: 3 shards started from the pods' specs (args, env, secretKeyRef, ConfigMap), each wrote its ready file: the Job's status.ready is 3 after $((SECONDS - KR_T0))s"
else
	fail "3 shards ready under the stand-in kubelet" "ready=$(job_field $J6 '{.status.ready}'); $(tail -5 "$TMP/kubelet-e2e.log" | tr '\n' ' ')"
fi
# the live console's source while the shards run: kubectl logs -f through the wrapper
timeout 60 "$BT" watch "k8s:$NS/$J6" --kubectl "$WRAP" >"$TMP/watch-e2e.out" 2>"$TMP/watch-e2e.err" &
W_PID=$!
PIDS+=($W_PID)
kr_wait 90; rc=$KR_RC
W_RC=0; wait_for 15 sh -c "! kill -0 $W_PID" || true; wait $W_PID || W_RC=$?
err=$TMP/kuberun-e2e.err
if [ "$rc" = 0 ] && grep -q "job $J6: Complete (3 of 3 shards succeeded)" "$err"; then
	pass "kube run --kubectl WRAPPER: the Job Complete, merged, exit 0 after $((SECONDS - KR_T0))s: '$(grep "job $J6: Complete" "$err")'"
else
	fail "kube run end to end" "exit $rc; $(cat "$err" "$TMP/kuberun-e2e.out" | tail -8 | tr '\n' ' ')"
fi
mapfile -t arts < <(ls "$TMP/merged-e2e"/*.json 2>/dev/null)
if [ ${#arts[@]} = 1 ]; then
	A=${arts[0]}
	pass "one merged artifact: $(basename "$A")"
	SERVED=$(count requests || echo none) AUTH=$(count authorized || echo none) PATHS=$(count paths || echo none)
	got=$(jq -r '[.steps[0].requests, .steps[0].errors, ([.shard.shards[].index] | map(tostring) | join(",")), .shard.merged, (.steps[0].series | length), .steps[0].hlog] | map(tostring) | join(" ")' "$A")
	read -r REQ ERRS IDX MERGED NSERIES HLOG <<<"$got"
	if [ "$REQ" = "$SERVED" ] && [ "$REQ" -gt 0 ] && [ "$ERRS" = 0 ]; then
		pass "merged steps[0].requests $REQ = the server's own count $SERVED (errors $ERRS)"
	else fail "merged requests vs the server's count" "requests $REQ errors $ERRS, served $SERVED"; fi
	if [ "$AUTH" = "$SERVED" ] && [ "$PATHS" = "/ping/1 /ping/2 /ping/3" ]; then
		pass "every request carried the Secret's token ($AUTH of $SERVED) and the ConfigMap's data file ids ($PATHS)"
	else fail "the Secret's token and the data file in the shards" "authorized $AUTH of $SERVED, paths $PATHS"; fi
	if [ "$IDX" = "0,1,2" ] && [ "$MERGED" = true ]; then pass "shard.merged true, shard.shards indexes $IDX"
	else fail "the merged artifact's shard block" "merged $MERGED, indexes '$IDX'"; fi
	if [ "$NSERIES" -gt 0 ] && [ -s "$TMP/merged-e2e/$HLOG" ]; then
		pass "the merged step has a series ($NSERIES points) and its interval log $HLOG ($(wc -c <"$TMP/merged-e2e/$HLOG") bytes)"
	else fail "the merged series and .hlog" "series $NSERIES, hlog '$HLOG'"; fi
	if "$BT" report "$TMP/merged-e2e" >"$TMP/report-e2e.out" 2>&1 && grep -q load "$TMP/report-e2e.out"; then
		pass "benchtui report OUT prints the group: '$(grep -m1 load "$TMP/report-e2e.out" | tr -s ' ')'"
	else fail "benchtui report of the merged run" "$(head -5 "$TMP/report-e2e.out" | tr '\n' ' ')"; fi
else
	fail "one merged artifact in $TMP/merged-e2e" "${#arts[@]} files"
fi
if [ "$W_RC" = 0 ] && L=$(grep -m1 'shards 3/3' "$TMP/watch-e2e.out"); then
	pass "watch k8s:$NS/$J6 --kubectl WRAPPER (kubectl logs -f) merged the 3 shards' live lines, exit 0: '$(grep 'shards 3/3' "$TMP/watch-e2e.out" | tail -1 | cut -c1-150)'"
else
	fail "watch k8s: during the run" "exit $W_RC; $(tail -3 "$TMP/watch-e2e.out" "$TMP/watch-e2e.err" | tr '\n' ' ')"
fi
stop_pid "$KL_PID"

# a shard whose clock runs 60 s ahead: it sees its start passed and exits 3
# before it is ready; the Job controller fails the Job (PodFailurePolicy) and
# deletes the other pods, whose shards the kubelet stops before any load
J7=benchtui-load-skew
before=$(count requests || echo none)
E2E_START_IN=40 # the check is that kube run ends before the cutoff (30 s): room for a busy machine; it ends in seconds
e2e_run skew --start-past 1=60
kr_wait 60; rc=$KR_RC
took=$((SECONDS - KR_T0))
err=$TMP/kuberun-skew.err
if [ "$rc" = 1 ] && [ $took -lt $((E2E_START_IN - 10)) ] && grep -q "job $J7: Failed .*PodFailurePolicy: Container shard for pod .* failed with exit code 3" "$err"; then
	pass "a shard 60 s ahead exits 3 before its start: the Job Failed, kube run exit 1 after ${took}s, before the cutoff: '$(grep "job $J7: Failed" "$err" | cut -c1-200)'"
else
	fail "kube run with a shard that exits 3 before the start" "exit $rc after ${took}s; $(tail -4 "$err" | tr '\n' ' ')"
fi
wait_for 15 sh -c "[ \$(ls '$KL_ROOT'/$J7-*/exit 2>/dev/null | wc -l) = 3 ]" || true
codes=$(for i in 0 1 2; do d=$(ls -d "$KL_ROOT/$J7-$i-"* 2>/dev/null | head -1); echo "$i:$(cat "$d/exit" 2>/dev/null || echo running)"; done | tr '\n' ' ')
after=$(count requests || echo none)
if [[ "$codes" == *"1:3 "* ]] && [ "$after" = "$before" ]; then
	pass "the shards' exit codes $codes(the others stopped when the Job controller deleted their pods), no request sent ($before before, $after after)"
else
	fail "the skewed run's shards" "exit codes $codes; requests $before before, $after after"
fi
stop_pid "$KL_PID"

# a shard killed mid-run (SIGKILL, exit 137, as the OOM killer does): the
# index fails, maxFailedIndexes 0 fails the Job, whose controller deletes
# the shards still running; kube run exits 1 with the --allow-partial hint.
# The hint's merge then finds what a real cluster keeps: the logs of the
# pods not deleted (the killed shard's, which framed no artifact), and says
# so naming the pod.
J8=benchtui-load-kill
before=$(count requests || echo none)
E2E_START_IN=25
e2e_run kill --kill 1=2
kr_wait 90; rc=$KR_RC
err=$TMP/kuberun-kill.err
if [ "$rc" = 1 ] && grep -q "job $J8: Failed (0 of 3 shards succeeded)" "$err" && grep -q "^what the shards measured: benchtui merge k8s:$NS/$J8 --allow-partial" "$err"; then
	pass "a shard killed 2 s into the load (exit 137): the Job Failed, kube run exit 1 with the hint: '$(grep "job $J8: Failed" "$err" | cut -c1-160)'"
else
	fail "kube run with a shard killed mid-run" "exit $rc; $(tail -4 "$err" | tr '\n' ' ')"
fi
wait_for 15 sh -c "[ \$(ls '$KL_ROOT'/$J8-*/exit 2>/dev/null | wc -l) = 3 ]" || true
codes=$(for i in 0 1 2; do d=$(ls -d "$KL_ROOT/$J8-$i-"* 2>/dev/null | head -1); echo "$i:$(cat "$d/exit" 2>/dev/null || echo running)"; done | tr '\n' ' ')
left=$(k get pods -l "job-name=$J8" -o name | tr '\n' ' ')
M_RC=0
"$BT" merge "k8s:$NS/$J8" --allow-partial --kubectl "$WRAP" -o "$TMP/merged-kill" >"$TMP/merge-kill.out" 2>"$TMP/merge-kill.err" || M_RC=$?
if [[ "$codes" == *"1:137 "* ]] && [ "$M_RC" = 2 ] && [ ! -e "$TMP/merged-kill" ] &&
	grep -q "k8s:$NS/$J8: the logs of pod/$J8-1-[a-z0-9]* hold no framed artifact" "$TMP/merge-kill.err"; then
	pass "the hint's merge --allow-partial: exit $M_RC, nothing merged (shards' exit codes $codes; pods left $left): '$(head -1 "$TMP/merge-kill.err" | cut -c1-160)'"
else
	fail "the killed run's shards and the partial merge" "exit codes $codes; pods left $left; merge exit $M_RC: $(head -2 "$TMP/merge-kill.err" | tr '\n' ' ')"
fi
echo "requests sent by the killed run: $(( $(count requests || echo 0) - ${before:-0} ))" >&2
stop_pid "$KL_PID"

for pid in $ETCD_PID $API_PID $KCM_PID; do alive "$pid" || fail "control plane process $pid still running at the end"; done
if [ "$FAILED" = 0 ]; then echo "ALL PASS"; else echo "SOME CHECKS FAILED"; exit 1; fi
