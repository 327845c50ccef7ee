#!/usr/bin/env python3
"""kube-standin.py: what bench/kube-controlplane.sh plays of a node, for one
Job's pods on a control plane with no kubelet, no scheduler and no container
runtime.

  kube-standin.py kubelet --root DIR --job JOB --namespace NS --kubectl KUBECTL
                  --exec BENCHTUI [--start-past INDEX=SECONDS] [--kill INDEX=SECONDS]
                  [--timeout SECONDS]
      The kubelet: every 0.5 s it lists the Job's pods (label job-name=JOB).
      For each new pod it reads the spec (container args and env: plain
      values, secretKeyRef from the Secret, fieldRef from the pod's labels
      and annotations; the ConfigMap volumes), writes each ConfigMap's files
      to DIR/POD/vol/VOLUME, and starts EXEC (the pod's entrypoint, benchtui)
      with the pod's args, every container path rewritten to the pod's
      folder: a volume's mountPath to DIR/POD/vol/VOLUME, /tmp to
      DIR/POD/tmp. Its stdout and stderr are read line by line, as a
      container runtime reads them, into DIR/POD/log. It plays the readiness
      probe (the probe's exec command, its paths rewritten, every 0.5 s) and
      patches the pod's status: Running once started, Ready=True once the
      probe passes, then Succeeded or Failed with the container's real exit
      code (terminated.exitCode) once the process has exited; DIR/POD/exit
      then holds the exit code, written once the log is complete. A pod
      deleted (by the Job controller failing the Job, or the Job deleted)
      has its process stopped with SIGTERM, as a kubelet does.
      --start-past INDEX=S gives the pod of that completion index a
      --start-at S seconds in the past (a machine whose clock runs S ahead);
      --kill INDEX=S kills that pod's process (SIGKILL, exit 137, as the
      OOM killer does) S seconds after its --start-at.
      Stops (SIGTERM to every process it started, then SIGKILL) on SIGTERM,
      SIGINT or after --timeout (default 300 s).

  kube-standin.py logs KUBECTL ROOT ARGS...
      `kubectl ARGS` when ARGS are `[-n NS] logs ...` with -l SELECTOR: the
      pods the real kubectl lists for SELECTOR, those the kubelet ran
      answered from DIR/POD/log, each line behind "[pod/POD/CONTAINER] "
      with --prefix; with -f (--follow) the pods' logs interleaved as they
      are written, until each pod's process has exited. --tail N (10 by
      default with a selector, as kubectl's; -1 every line). A pod listed
      and not started (no log yet) is kubectl's error: "container ... is
      waiting to start". Pods none of which the kubelet ran (another Job)
      and any other call go to the real kubectl.
"""
import base64
import calendar
import json
import os
import signal
import subprocess
import sys
import threading
import time


def kubectl(kc, ns, *args, stdin=None, check=True):
    p = subprocess.run([kc, "-n", ns, *args], input=stdin, capture_output=True, text=True, timeout=30)
    if check and p.returncode != 0:
        raise RuntimeError("kubectl %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def log(msg):
    print("%s kubelet: %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class Pod:
    """One pod the kubelet runs: its process, its log, its status."""

    def __init__(self, kl, obj):
        self.kl, self.name = kl, obj["metadata"]["name"]
        self.index = obj["metadata"].get("annotations", {}).get("batch.kubernetes.io/job-completion-index", "")
        self.dir = os.path.join(kl.root, self.name)
        self.spec = obj["spec"]
        self.c = self.spec["containers"][0]
        self.proc, self.ready, self.ended, self.started_at = None, False, False, None
        self.kill_at = None
        self.lock = threading.Lock()

    def path(self, p):
        """A container path rewritten to the pod's folder."""
        for m in sorted(self.c.get("volumeMounts", []), key=lambda m: -len(m["mountPath"])):
            mp = m["mountPath"].rstrip("/")
            if p == mp or p.startswith(mp + "/"):
                return os.path.join(self.dir, "vol", m["name"]) + p[len(mp):]
        if p == "/tmp" or p.startswith("/tmp/"):
            return os.path.join(self.dir, "tmp") + p[len("/tmp"):]
        return p

    def env(self, obj):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(self.dir, "tmp"),
               "HOSTNAME": self.spec.get("hostname", self.name)}
        meta = obj["metadata"]
        for e in self.c.get("env", []):
            if "value" in e:
                env[e["name"]] = e["value"]
                continue
            src = e.get("valueFrom", {})
            if "secretKeyRef" in src:
                ref = src["secretKeyRef"]
                s = json.loads(kubectl(self.kl.kc, self.kl.ns, "get", "secret", ref["name"], "-o", "json").stdout)
                env[e["name"]] = base64.b64decode(s["data"][ref["key"]]).decode()
            elif "fieldRef" in src:
                fp = src["fieldRef"]["fieldPath"]  # metadata.labels['k'] or metadata.annotations['k']
                for kind in ("labels", "annotations"):
                    pre = "metadata.%s['" % kind
                    if fp.startswith(pre) and fp.endswith("']"):
                        env[e["name"]] = meta.get(kind, {}).get(fp[len(pre):-2], "")
                        break
                else:
                    env[e["name"]] = {"metadata.name": meta["name"], "metadata.namespace": meta["namespace"]}.get(fp, "")
            else:
                raise RuntimeError("pod %s: env %s: unsupported valueFrom %s" % (self.name, e["name"], src))
        return env

    def start(self, obj):
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        for v in self.spec.get("volumes", []):
            d = os.path.join(self.dir, "vol", v["name"])
            os.makedirs(d, exist_ok=True)
            if "configMap" in v:
                cm = json.loads(kubectl(self.kl.kc, self.kl.ns, "get", "configmap", v["configMap"]["name"], "-o", "json").stdout)
                for k, val in cm.get("data", {}).items():
                    with open(os.path.join(d, k), "w") as f:
                        f.write(val)
        args = [self.path(a) for a in self.c.get("args", [])]
        if self.index in self.kl.start_past and "--start-at" in args:
            i = args.index("--start-at") + 1
            args[i] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - self.kl.start_past[self.index]))
            log("pod %s (index %s): --start-at %s instead (its clock %s s ahead)" % (self.name, self.index, args[i], self.kl.start_past[self.index]))
        if self.index in self.kl.kill and "--start-at" in args:
            t = args[args.index("--start-at") + 1]
            self.kill_at = calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%SZ")) + self.kl.kill[self.index]
        env = self.env(obj)
        with open(os.path.join(self.dir, "cmd"), "w") as f:
            f.write(" ".join([self.kl.exe] + args) + "\n")
        self.logf = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen([self.kl.exe] + args, env=env, cwd=self.dir, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with open(os.path.join(self.dir, "pid"), "w") as f:
            f.write("%d\n" % self.proc.pid)
        self.started_at = now()
        self.readers = [threading.Thread(target=self.copy, args=(s,), daemon=True) for s in (self.proc.stdout, self.proc.stderr)]
        for t in self.readers:
            t.start()
        log("pod %s (index %s): started pid %d: %s" % (self.name, self.index, self.proc.pid, " ".join(args)))
        self.patch(self.status("Running", False, {"running": {"startedAt": self.started_at}}))

    def copy(self, stream):
        """A stream's lines into the log, whole lines only, as a runtime logs them."""
        for line in iter(stream.readline, b""):
            if not line.endswith(b"\n"):
                line += b"\n"
            with self.lock:
                self.logf.write(line.decode("utf-8", "replace"))
                self.logf.flush()

    def status(self, phase, ready, state):
        t = now()
        cond = [{"type": c, "status": "True" if ready else "False", "lastTransitionTime": t} for c in ("Ready", "ContainersReady")]
        cs = {"name": self.c["name"], "image": self.c["image"], "imageID": "", "ready": ready, "restartCount": 0,
              "started": "running" in state, "state": state}
        return {"status": {"phase": phase, "startTime": self.started_at, "conditions": cond, "containerStatuses": [cs]}}

    def patch(self, body):
        p = kubectl(self.kl.kc, self.kl.ns, "patch", "pod", self.name, "--subresource=status", "--type=merge", "-p", json.dumps(body), check=False)
        if p.returncode != 0:
            log("pod %s: patch: %s" % (self.name, p.stderr.strip()))

    def probe(self):
        cmd = self.c.get("readinessProbe", {}).get("exec", {}).get("command")
        if not cmd:
            return True
        return subprocess.run([self.path(a) for a in cmd], capture_output=True, timeout=5).returncode == 0

    def step(self):
        """One pass: the probe, the kill, the exit."""
        if self.ended or self.proc is None:
            return
        if self.kill_at is not None and time.time() >= self.kill_at and self.proc.poll() is None:
            log("pod %s (index %s): SIGKILL (--kill)" % (self.name, self.index))
            self.proc.kill()
            self.kill_at = None
        code = self.proc.poll()
        if code is None:
            if not self.ready and self.probe():
                self.ready = True
                log("pod %s (index %s): ready" % (self.name, self.index))
                self.patch(self.status("Running", True, {"running": {"startedAt": self.started_at}}))
            return
        self.finish(code)

    def finish(self, code, patch=True):
        for t in self.readers:
            t.join(5)
        self.logf.close()
        if code < 0:  # killed by a signal: a container's exit code is 128 + the signal
            code = 128 - code
        self.ended = True
        with open(os.path.join(self.dir, "exit.tmp"), "w") as f:
            f.write("%d\n" % code)
        os.rename(os.path.join(self.dir, "exit.tmp"), os.path.join(self.dir, "exit"))
        log("pod %s (index %s): exited %d" % (self.name, self.index, code))
        if patch:
            state = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                    "startedAt": self.started_at, "finishedAt": now()}}
            self.patch(self.status("Succeeded" if code == 0 else "Failed", False, state))

    def stop(self, patch):
        """SIGTERM, then SIGKILL after 10 s (the pod's grace period is 30 s)."""
        if self.ended or self.proc is None:
            return
        self.proc.terminate()
        try:
            code = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(5)
        self.finish(code, patch)


class Kubelet:
    def __init__(self, a):
        self.root, self.job, self.ns, self.kc, self.exe = a["root"], a["job"], a["namespace"], a["kubectl"], a["exec"]
        self.start_past = dict((k, float(v)) for k, v in (x.split("=") for x in a.get("start-past", [])))
        self.kill = dict((k, float(v)) for k, v in (x.split("=") for x in a.get("kill", [])))
        self.timeout = float(a.get("timeout", ["300"])[-1])
        self.pods = {}
        self.stopping = False

    def run(self):
        deadline = time.time() + self.timeout
        os.makedirs(self.root, exist_ok=True)
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        signal.signal(signal.SIGINT, lambda *_: setattr(self, "stopping", True))
        log("watching pods job-name=%s in %s" % (self.job, self.ns))
        try:
            while not self.stopping and time.time() < deadline:
                p = kubectl(self.kc, self.ns, "get", "pods", "-l", "job-name=" + self.job, "-o", "json", check=False)
                if p.returncode == 0:
                    items = json.loads(p.stdout)["items"]
                    seen = set()
                    for obj in items:
                        name = obj["metadata"]["name"]
                        seen.add(name)
                        if name not in self.pods and not obj["metadata"].get("deletionTimestamp"):
                            self.pods[name] = pod = Pod(self, obj)
                            pod.start(obj)
                    for name, pod in self.pods.items():
                        if name not in seen and not pod.ended:
                            log("pod %s (index %s): deleted: SIGTERM" % (name, pod.index))
                            pod.stop(patch=False)
                for pod in list(self.pods.values()):
                    pod.step()
                time.sleep(0.5)
        finally:
            for pod in self.pods.values():
                pod.stop(patch=False)
            log("stopped")


def logs(kc, root, args):
    """kubectl logs for the pods the kubelet ran; anything else: the real kubectl."""
    real = lambda: os.execv(kc, [kc] + args)
    ns, rest, i = "default", [], 0
    while i < len(args):
        if args[i] in ("-n", "--namespace"):
            ns = args[i + 1]
            i += 2
            continue
        if args[i].startswith("--namespace="):
            ns = args[i].split("=", 1)[1]
        else:
            rest.append(args[i])
        i += 1
    if not rest or rest[0] != "logs":
        real()
    sel, follow, prefix, tail, container = None, False, False, None, None
    i = 1
    while i < len(rest):
        a = rest[i]
        if a in ("-l", "--selector"):
            sel, i = rest[i + 1], i + 1
        elif a.startswith("--selector=") or a.startswith("-l="):
            sel = a.split("=", 1)[1]
        elif a in ("-f", "--follow", "--follow=true"):
            follow = True
        elif a in ("--prefix", "--prefix=true"):
            prefix = True
        elif a.startswith("--tail="):
            tail = int(a.split("=", 1)[1])
        elif a == "--tail":
            tail, i = int(rest[i + 1]), i + 1
        elif a in ("-c", "--container"):
            container, i = rest[i + 1], i + 1
        elif a.startswith("--max-log-requests"):
            if "=" not in a:
                i += 1
        else:
            real()  # a pod by name, or a flag not played here
        i += 1
    if sel is None:
        real()
    p = subprocess.run([kc, "-n", ns, "get", "pods", "-l", sel, "-o", "json"], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(p.returncode)
    pods = sorted(json.loads(p.stdout)["items"], key=lambda o: o["metadata"]["name"])
    ours = [o for o in pods if os.path.isdir(os.path.join(root, o["metadata"]["name"]))]
    if not ours:
        real()
    if tail is None:
        tail = 10  # kubectl's default with a selector
    streams = []
    for o in pods:
        name = o["metadata"]["name"]
        c = container or o["spec"]["containers"][0]["name"]
        path = os.path.join(root, name, "log")
        if not os.path.exists(path):
            sys.stderr.write('error: container "%s" in pod "%s" is waiting to start: ContainerCreating\n' % (c, name))
            sys.exit(1)
        streams.append(("[pod/%s/%s] " % (name, c) if prefix else "", path, os.path.join(root, name, "exit")))
    out = sys.stdout
    if not follow:
        for pre, path, _ in streams:
            with open(path, errors="replace") as f:
                lines = f.readlines()
            if tail >= 0:
                lines = lines[len(lines) - tail:] if tail else []
            out.write("".join(pre + l for l in lines))
        out.flush()
        return
    # -f: every pod's log as it grows, whole lines, until its process exited
    files = []
    for pre, path, exitf in streams:
        f = open(path, errors="replace")
        if tail >= 0:
            lines = f.readlines()
            out.write("".join(pre + l for l in (lines[len(lines) - tail:] if tail else [])))
        files.append([pre, f, exitf, ""])
    deadline = time.time() + 900
    while files and time.time() < deadline:
        done = []
        for st in files:
            pre, f, exitf = st[0], st[1], st[2]
            ended = os.path.exists(exitf)  # before reading: what follows it is all there is
            chunk = f.read()
            if chunk:
                st[3] += chunk
                *whole, st[3] = st[3].split("\n")
                if whole:
                    out.write("".join(pre + l + "\n" for l in whole))
            if ended:
                if st[3]:
                    out.write(pre + st[3] + "\n")
                done.append(st)
        out.flush()
        for st in done:
            st[1].close()
            files.remove(st)
        if files:
            time.sleep(0.2)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "logs":
        try:
            logs(sys.argv[2], sys.argv[3], sys.argv[4:])
        except BrokenPipeError:
            pass
        return
    if len(sys.argv) < 2 or sys.argv[1] != "kubelet":
        sys.exit(__doc__)
    a, key = {}, None
    for x in sys.argv[2:]:
        if x.startswith("--"):
            key = x[2:]
            a.setdefault(key, [])
        elif key:
            a[key].append(x)
    one = {k: v[-1] for k, v in a.items() if k not in ("start-past", "kill") and v}
    one.update({k: a[k] for k in ("start-past", "kill", "timeout") if k in a})
    for k in ("root", "job", "namespace", "kubectl", "exec"):
        if k not in one:
            sys.exit("kubelet: --%s is required" % k)
    Kubelet(one).run()


if __name__ == "__main__":
    main()
