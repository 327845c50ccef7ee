//go:build linux

package pgload

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"golang.org/x/sys/unix"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/evloop"
)

// epollRunner is the postgres runner with client: epoll. It is a Driver:
// its event loops (runners/evloop) own a connection per worker, opened
// through pgx before the step's clock (Prepare), its statements prepared
// and then taken from pgx (Hijack), and run each as the engine's loops
// would (a closed loop's next statement when the one before it ended, or
// an open loop's arrivals).
type epollRunner struct{ *runner }

var _ runners.Driver = (*epollRunner)(nil)

func newEpollRunner(r *runner) (runners.Runner, error) { return &epollRunner{runner: r}, nil }

// Drive runs the step's connections until ctx ends and their statements
// out have finished, or env.Ops (the grace for them) ends.
func (r *epollRunner) Drive(ctx context.Context, env *runners.StepEnv) error {
	if env.Shard.Active() { // a safety net: a sharded run's plan check (Kind.Shardable) refuses it first
		return errors.New("postgres client: epoll does not run sharded")
	}
	n := max(env.Load.Workers(), 1)
	raws, err := r.takeRaw(ctx, n)
	if err != nil {
		return err
	}
	scanEvery := 100 * time.Millisecond
	if r.timeout > 0 {
		scanEvery = min(max(r.timeout/10, time.Millisecond), scanEvery)
	}
	newLoop := func(l *evloop.Loop) (*pgLoop, error) { return newPgLoop(l, r.runner, n), nil }
	add := func(l *pgLoop, id int) { l.addConn(id, raws[id], max(r.spec.Pipeline, 1)) }
	err = evloop.Drive(ctx, env, scanEvery, newLoop, add)
	for _, rc := range raws {
		rc.close() // those no loop took (an error before it did)
	}
	return err
}

// rawConn is a connection taken from pgx: its socket, and its statements
// prepared, in the order of the mix.
type rawConn struct {
	fd   int
	stmt []prepared
}

// prepared is one statement of the mix on one connection.
type prepared struct {
	name string
	sd   *pgconn.StatementDescription
	wire []byte // its Bind, Execute and Sync, for a statement without args; nil with args
}

// close closes fd, if it is still rc's.
func (rc *rawConn) close() {
	if rc != nil && rc.fd >= 0 {
		unix.Close(rc.fd)
		rc.fd = -1
	}
}

// takeRaw takes the n connections Prepare opened (opening any missing)
// and makes each a rawConn, at once.
func (r *epollRunner) takeRaw(ctx context.Context, n int) ([]*rawConn, error) {
	raws := make([]*rawConn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			conn, err := r.conns.take()
			if err == nil {
				raws[i], err = r.hijack(ctx, conn)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, rc := range raws {
			rc.close()
		}
		return nil, err
	}
	return raws, nil
}

// stmtName is the name statement i of the mix is prepared under.
func stmtName(i int) string { return fmt.Sprintf("benchtui_%d", i) }

// hijack prepares the mix's statements on conn and takes its socket from
// pgx; conn is gone either way.
func (r *runner) hijack(ctx context.Context, conn *pgx.Conn) (*rawConn, error) {
	defer conn.Close(context.Background()) // a no-op once hijacked
	rc := &rawConn{fd: -1}
	pc := conn.PgConn()
	for i, st := range r.stmts {
		sd, err := pc.Prepare(ctx, stmtName(i), st.sql, nil)
		if err != nil {
			return nil, fmt.Errorf("preparing %s (%q): %w", st.name, abbreviate(st.sql), redactErr(err, r.dsn))
		}
		p := prepared{name: stmtName(i), sd: sd}
		if len(st.args) == 0 {
			var eqb pgx.ExtendedQueryBuilder
			if err := eqb.Build(conn.TypeMap(), sd, nil); err != nil {
				return nil, err
			}
			if p.wire, err = encodeStatement(nil, &p, &eqb); err != nil {
				return nil, err
			}
		}
		rc.stmt = append(rc.stmt, p)
	}
	hc, err := pc.Hijack()
	if err != nil {
		return nil, err
	}
	if rc.fd, err = socketOf(hc.Conn); err != nil {
		return nil, err
	}
	return rc, nil
}

// errTLS: the epoll client reads and writes the socket itself.
var errTLS = errors.New("postgres client: epoll needs a connection without TLS (sslmode=disable)")

// socketOf duplicates nc's socket, non-blocking, and closes nc (which
// takes it out of Go's netpoller).
func socketOf(nc net.Conn) (int, error) {
	defer nc.Close()
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1, errTLS
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// syncTail is an Execute of all rows and a Sync, after every Bind.
var syncTail = func() []byte {
	b, _ := (&pgproto3.Execute{}).Encode(nil)
	b, _ = (&pgproto3.Sync{}).Encode(b)
	return b
}()

// encodeStatement appends to dst a Bind of p with eqb's arguments and
// result formats, an Execute and a Sync.
func encodeStatement(dst []byte, p *prepared, eqb *pgx.ExtendedQueryBuilder) ([]byte, error) {
	bind := pgproto3.Bind{PreparedStatement: p.name, ParameterFormatCodes: eqb.ParamFormats,
		Parameters: eqb.ParamValues, ResultFormatCodes: eqb.ResultFormats}
	dst, err := bind.Encode(dst)
	if err != nil {
		return dst, err
	}
	return append(dst, syncTail...), nil
}

// pgLoop is the Postgres side of one event loop: its connections, and
// the goroutines that open new ones for those the server or a timeout
// closed.
type pgLoop struct {
	*evloop.Loop
	r     *runner
	conns []*pgConn
	tm    *pgtype.Map
	eqb   pgx.ExtendedQueryBuilder
	// dials are running reconnects; dialed brings them back to the loop
	// (Woken), room for one per connection so that none blocks.
	dialCtx context.Context
	stop    context.CancelFunc
	dials   sync.WaitGroup
	dialed  chan dialResult
}

var _ evloop.Handler = (*pgLoop)(nil)

type dialResult struct {
	c   *pgConn
	rc  *rawConn
	err error
}

func newPgLoop(l *evloop.Loop, r *runner, conns int) *pgLoop {
	ctx, stop := context.WithCancel(context.Background())
	return &pgLoop{Loop: l, r: r, tm: pgtype.NewMap(), dialCtx: ctx, stop: stop, dialed: make(chan dialResult, conns)}
}

// addConn gives the loop worker id's connection rc, with slots
// statements out at a time (postgres.pipeline). The loop owns rc's
// socket from here on.
func (l *pgLoop) addConn(id int, rc *rawConn, slots int) {
	index := l.AddConn(id, slots)
	c := &pgConn{Socket: evloop.Socket{Index: int32(index), FD: -1}, l: l, w: newWorker(l.r, id, l.Recorder(index), nil), reply: newReplyReader()}
	l.conns = append(l.conns, c)
	if err := l.install(c, rc); err != nil {
		c.err = err // the first statement fails with it, and dials anew
	}
}

// Close ends the reconnects and closes the loop's sockets, saying
// goodbye (Terminate) on those with nothing out.
func (l *pgLoop) Close() {
	l.stop()
	l.dials.Wait()
	for len(l.dialed) > 0 {
		(<-l.dialed).rc.close()
	}
	bye, _ := (&pgproto3.Terminate{}).Encode(nil)
	for _, c := range l.conns {
		if c.FD >= 0 && len(c.out) == 0 && !c.Out.Pending() {
			unix.Write(c.FD, bye)
		}
		c.Close()
	}
	l.conns = nil
}

// Woken takes in the reconnects that have ended.
func (l *pgLoop) Woken(now time.Time) {
	for {
		select {
		case d := <-l.dialed:
			l.dialDone(d, now)
		default:
			return
		}
	}
}
