package redisload

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testRegistry knows the redis kind only.
var testRegistry = runners.MustRegistry(Kind())

// startServer starts a throwaway redis-server (StartEmbedded: loopback, a
// free port, --save ” --appendonly no), stopped at cleanup; the test
// skips only when redis-server is not installed. On failure the server's
// log is kept in the test's output.
func startServer(t testing.TB) *Embedded {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed (apt-get install redis-server)")
	}
	e, err := StartEmbedded(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("redis log:\n%s", e.logTail())
		}
		if err := e.Stop(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// admin is a plain client to the server, the tests' ground truth.
func admin(t testing.TB, addr string) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// do runs one command on c and returns its reply as text.
func do(t testing.TB, c rueidis.Client, args ...string) string {
	t.Helper()
	msg, err := c.Do(context.Background(), c.B().Arbitrary(args...).Build()).ToMessage()
	if err != nil && !rueidis.IsRedisNil(err) {
		t.Fatalf("%v: %v", args, err)
	}
	return string(replyText(nil, msg))
}

// doInt runs one command on c whose reply is a number.
func doInt(t testing.TB, c rueidis.Client, args ...string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(do(t, c, args...), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// calls is the server's own count of a command's calls (INFO
// commandstats), 0 when it has none.
func calls(t testing.TB, c rueidis.Client, cmd string) int64 {
	t.Helper()
	for _, line := range strings.Split(do(t, c, "INFO", "commandstats"), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+cmd+":calls=")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return 0
}

// waitFor polls cond every 10 ms for up to limit.
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(errors.New("timed out waiting for " + what))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
