package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/redisload"
	"github.com/benchtui/benchtui/runners/sse"
	"github.com/benchtui/benchtui/runners/watch"
)

// finding is one line of the doctor's report.
type finding struct {
	level string // ok, warn, error
	what  string
}

// cmdDoctor checks the machine against a plan's needs: the fd limit, UDP
// buffers for QUIC, each target's command or process, each Postgres DSN.
// It exits 1 when a check is an error.
func cmdDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// doctor has no flags: one given is an unknown flag, not a plan path.
	flags := flagSet("doctor")
	flags.SetOutput(stderr)
	args, err := parseInterspersed(flags, args)
	if err != nil {
		return exitUsage // the flag package said why, and the synopsis
	}
	if len(args) > 1 {
		fmt.Fprintln(stderr, "usage: benchtui doctor [PLAN]")
		return exitUsage
	}
	pl, err := loadPlan(firstArg(args))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	var fs []finding
	fs = append(fs, checkFDs(pl)...)
	fs = append(fs, checkConnections(pl, readHostLimits())...)
	fs = append(fs, checkUDP(pl)...)
	fs = append(fs, checkTargets(pl)...)
	fs = append(fs, checkPostgres(ctx, pl)...)
	fs = append(fs, checkRedis(ctx, pl)...)
	for _, w := range remoteWarnings(pl) {
		fs = append(fs, finding{"warn", w})
	}
	code := exitOK
	for _, f := range fs {
		fmt.Fprintf(stdout, "%-5s %s\n", f.level, pl.Redact(f.what))
		if f.level == "error" {
			code = exitFail
		}
	}
	return code
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// unitsOf is the most connections or subscribers a group holds at once.
func unitsOf(g *plan.Group) int {
	n := g.Load.Workers()
	for _, k := range []string{"concurrency", "max_in_flight", "subscribers"} {
		n = max(n, int(slices.Max(append([]float64{0}, g.Sweep[k]...))))
	}
	if s := plan.Section[sse.Spec](g, sse.Section); s != nil {
		n = max(n, s.Subscribers)
	}
	return n
}

// checkFDs compares the open-files limit with what the plan needs: each
// connection or subscriber costs about target.FDCostPerUnit fds (the seed's
// measured 1.5), the largest group counting since groups run one by one.
func checkFDs(pl *plan.Plan) []finding {
	need := 64
	for _, g := range pl.Groups {
		need = max(need, 64+int(math.Ceil(float64(unitsOf(g))*watch.FDCostPerUnit)))
	}
	soft, hard, err := fdLimit()
	if err != nil {
		return []finding{{"warn", fmt.Sprintf("open files: cannot read the limit: %v", err)}}
	}
	switch {
	case hard < uint64(need):
		return []finding{{"error", fmt.Sprintf("open files: hard limit %d < %d the plan needs; raise it as root: ulimit -Hn %d (a login's: `* hard nofile %d` in /etc/security/limits.conf; past fs.nr_open: sysctl -w fs.nr_open=%d)", hard, need, need, need, need)}}
	case soft < uint64(need):
		return []finding{{"ok", fmt.Sprintf("open files: soft limit %d < %d needed; benchtui raises it to the hard limit %d at every run", soft, need, hard)}}
	}
	return []finding{{"ok", fmt.Sprintf("open files: limit %d >= %d needed", soft, need)}}
}

func checkUDP(pl *plan.Plan) []finding {
	if !slices.ContainsFunc(pl.Groups, func(g *plan.Group) bool { return g.Runner == "quic" }) {
		return nil
	}
	rmem, err := watch.UDPBufferMax()
	switch {
	case err != nil:
		return []finding{{"warn", fmt.Sprintf("UDP buffers: %v", err)}}
	case rmem < watch.QUICWantUDPBuffer:
		return []finding{{"warn", fmt.Sprintf("UDP buffers: net.core.rmem_max is %d, quic-go wants %d; raise with: sysctl -w net.core.rmem_max=7500000 net.core.wmem_max=7500000", rmem, watch.QUICWantUDPBuffer)}}
	}
	return []finding{{"ok", fmt.Sprintf("UDP buffers: net.core.rmem_max %d", rmem)}}
}

func checkTargets(pl *plan.Plan) []finding {
	var fs []finding
	for name, t := range pl.Targets {
		switch {
		case len(t.Command) > 0:
			if _, err := exec.LookPath(t.Command[0]); err != nil {
				fs = append(fs, finding{"error", fmt.Sprintf("target %s: command %q not found", name, t.Command[0])})
				continue
			}
			fs = append(fs, finding{"ok", fmt.Sprintf("target %s: command %s found", name, t.Command[0])})
		case t.PIDFile != "":
			fs = append(fs, fileFinding("target "+name+": pidfile", t.PIDFile))
		case t.Cgroup != "":
			fs = append(fs, checkCgroup(name, t.Cgroup))
		case t.Container != "":
			fs = append(fs, checkContainer(name, t))
		case t.PID > 0:
			if err := checkPID(t.PID); err != nil {
				fs = append(fs, finding{"error", fmt.Sprintf("target %s: pid %d: %v", name, t.PID, err)})
			} else {
				fs = append(fs, finding{"ok", fmt.Sprintf("target %s: pid %d running", name, t.PID)})
			}
		}
	}
	return fs
}

// checkContainer asks a container target's runtime for its main PID, as
// the target's start will.
func checkContainer(name string, t *plan.TargetSpec) finding {
	pid, err := watch.ContainerPID(context.Background(), t.Runtime, t.Container)
	if err != nil {
		return finding{"error", fmt.Sprintf("target %s: %v", name, err)}
	}
	return finding{"ok", fmt.Sprintf("target %s: container %s running (pid %d)", name, t.Container, pid)}
}

// checkCgroup checks a cgroup target's folder and the files benchtui reads
// in it, as attaching the target will (the plan checks its syntax only).
func checkCgroup(name, dir string) finding {
	if err := watch.CheckCgroup(dir); err != nil {
		return finding{"error", fmt.Sprintf("target %s: %v", name, err)}
	}
	return finding{"ok", fmt.Sprintf("target %s: cgroup %s has the files benchtui reads", name, dir)}
}

func fileFinding(what, path string) finding {
	if _, err := os.Stat(path); err != nil {
		return finding{"error", fmt.Sprintf("%s %s: %v", what, path, err)}
	}
	return finding{"ok", fmt.Sprintf("%s %s exists", what, path)}
}

func checkPostgres(ctx context.Context, pl *plan.Plan) []finding {
	var fs []finding
	for _, g := range pl.Groups {
		spec := plan.Section[pgload.Spec](g, pgload.Section)
		if spec == nil {
			continue
		}
		if spec.DSN == pgload.EmbeddedDSN {
			dir, err := pgload.FindBinDir("")
			if err != nil {
				fs = append(fs, finding{"error", fmt.Sprintf("group %s: embedded Postgres: %v", g.ID, err)})
			} else {
				fs = append(fs, finding{"ok", fmt.Sprintf("group %s: embedded Postgres from %s", g.ID, dir)})
			}
			continue
		}
		fs = append(fs, dialDSN(ctx, g.ID, spec.DSN))
	}
	return fs
}

// checkRedis checks each redis group's server: redis-server on PATH for
// an embedded one, else that its addr accepts connections.
func checkRedis(ctx context.Context, pl *plan.Plan) []finding {
	var fs []finding
	for _, g := range pl.Groups {
		spec := plan.Section[redisload.Spec](g, redisload.Section)
		switch {
		case spec == nil:
		case spec.Addr != redisload.EmbeddedAddr:
			fs = append(fs, dialAddr(ctx, g.ID, "Redis", spec.Addr))
		default:
			if bin, err := exec.LookPath("redis-server"); err != nil {
				fs = append(fs, finding{"error", fmt.Sprintf("group %s: embedded Redis: %v", g.ID, redisload.ErrNoRedis)})
			} else {
				fs = append(fs, finding{"ok", fmt.Sprintf("group %s: embedded Redis from %s", g.ID, bin)})
			}
		}
	}
	return fs
}

// dialDSN checks that a postgres:// DSN's server accepts connections.
func dialDSN(ctx context.Context, group, dsn string) finding {
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		return finding{"warn", fmt.Sprintf("group %s: cannot tell the server of the DSN (not a postgres:// URL)", group)}
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "5432")
	}
	return dialAddr(ctx, group, "Postgres", addr)
}

// dialAddr checks that the server (what names it) of a group at addr
// accepts connections.
func dialAddr(ctx context.Context, group, what, addr string) finding {
	d := net.Dialer{Timeout: 3 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return finding{"error", fmt.Sprintf("group %s: %s at %s unreachable: %v", group, what, addr, err)}
	}
	conn.Close()
	return finding{"ok", fmt.Sprintf("group %s: %s at %s reachable", group, what, addr)}
}
