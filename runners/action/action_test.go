package action

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/plan"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// The statement runs on the real database: the row it changed is there,
// and the result counts it.
func TestSQLChangesTheRow(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE config(id int PRIMARY KEY, slow bool NOT NULL); INSERT INTO config VALUES (1, false), (2, false)"); err != nil {
		t.Fatal(err)
	}
	res := SQL(ctx, dsn, "UPDATE config SET slow = true WHERE id = 1", 5*time.Second)
	if !res.OK || res.Rows == nil || *res.Rows != 1 {
		t.Fatalf("result %+v: want 1 row", res)
	}
	var slow bool
	if err := conn.QueryRow(ctx, "SELECT slow FROM config WHERE id = 1").Scan(&slow); err != nil || !slow {
		t.Fatalf("slow = %v (%v): the update did not land", slow, err)
	}
	bad := SQL(ctx, dsn, "UPDATE nowhere SET x = 1", 5*time.Second)
	if bad.OK || !strings.Contains(bad.Error, "nowhere") {
		t.Errorf("a failing statement: %+v", bad)
	}
	slowQ := SQL(ctx, dsn, "SELECT pg_sleep(30) /* cut */", 200*time.Millisecond)
	if slowQ.OK || slowQ.DurationMS > 5000 {
		t.Errorf("a statement past its timeout: %+v", slowQ)
	}
	// Cut means stopped on the server too, not only dropped by the client.
	var still int
	q := "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(30) /* cut */%' AND pid <> pg_backend_pid()"
	if err := conn.QueryRow(ctx, q).Scan(&still); err != nil || still != 0 {
		t.Errorf("the statement cut at its timeout still runs on the server: %d (%v)", still, err)
	}
}

// The request reaches the server (its own count is the truth) with its
// method, headers and body; an unexpected status is a failure.
func TestHTTPReachesTheServer(t *testing.T) {
	var rotations atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/admin/rotate" && r.Header.Get("X-Why") == "test" {
			rotations.Add(1)
			w.Write([]byte("rotated"))
			return
		}
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	client := srv.Client()
	spec := &plan.ActionHTTP{URL: srv.URL + "/admin/rotate", Headers: map[string]string{"X-Why": "test"}, Body: "{}"}
	res := HTTP(context.Background(), client, "POST", spec, 5*time.Second)
	if !res.OK || res.Status != 200 || res.Output != "rotated" || rotations.Load() != 1 {
		t.Fatalf("result %+v, server counted %d", res, rotations.Load())
	}
	res = HTTP(context.Background(), client, "GET", spec, 5*time.Second)
	if res.OK || res.Status != http.StatusTeapot {
		t.Errorf("a 418: %+v", res)
	}
	spec.ExpectStatus = []int{http.StatusTeapot}
	if res = HTTP(context.Background(), client, "GET", spec, 5*time.Second); !res.OK {
		t.Errorf("an expected 418: %+v", res)
	}
}

// A command's output is kept up to MaxOutput; at its timeout the whole
// process group is killed, a background child included.
func TestExecBoundsAndKillsGroup(t *testing.T) {
	res := Exec(context.Background(), []string{"sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; exit 3"}, 5*time.Second)
	if res.OK || res.ExitCode == nil || *res.ExitCode != 3 || !strings.HasPrefix(res.Output, strings.Repeat("x", MaxOutput)) || len(res.Output) > MaxOutput+40 {
		t.Errorf("exit %v, ok %v, %d bytes of output", res.ExitCode, res.OK, len(res.Output))
	}
	pidFile := filepath.Join(t.TempDir(), "child")
	start := time.Now()
	res = Exec(context.Background(), []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; wait"}, 300*time.Millisecond)
	if res.OK || !strings.Contains(res.Error, "timeout after 300ms") || time.Since(start) > 3*time.Second {
		t.Fatalf("a hanging command: %+v after %s", res, time.Since(start))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(2 * time.Second)
	for alive(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(child) {
		t.Errorf("the command's child %d outlived its timeout", child)
	}
	if res := Exec(context.Background(), []string{"/nonexistent/cmd"}, time.Second); res.OK || res.Error == "" {
		t.Errorf("a missing command: %+v", res)
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
