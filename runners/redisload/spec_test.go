package redisload

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
)

// TestPlanErrorsNameTheField: each bad redis section is a plan error at
// its line, naming the field.
func TestPlanErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ section, want string }{
		{`{addr: "localhost", commands: [{cmd: [PING]}]}`, `redis.addr: want host:port or "embedded"`},
		{`{addr: "127.0.0.1:1", commands: [{cmd: [PING], script: "return 1"}]}`, "redis.commands[0].cmd: want cmd or script, not both"},
		{`{addr: "127.0.0.1:1", commands: [{cmd: [SUBSCRIBE, ch]}]}`, "redis.commands[0].cmd: SUBSCRIBE holds the connection"},
		{`{addr: "127.0.0.1:1", commands: [{cmd: [GET, k], count: {"a b": "1"}}]}`, "redis.commands[0].count.a b: want a counter name"},
		{`{addr: "127.0.0.1:1", commands: [{cmd: [GET, k], capture: {v: {regex: "."}}}]}`, "redis.commands[0].capture: is for the steps of a flow"},
		{`{addr: "127.0.0.1:1", flow: [{cmd: [GET, k], capture: {v: {column: id}}}]}`, "redis.flow[0].capture.v: a Redis reply is text"},
		{`{addr: "127.0.0.1:1", flow: [{cmd: [GET, "{{.nope}}"]}]}`, "redis.flow[0].cmd[1]: template"},
		{`{addr: "127.0.0.1:1", pipeline: 4, flow: [{cmd: [GET, k]}]}`, "redis.pipeline: is for a mix of commands"},
		{`{addr: "127.0.0.1:1", commands: [{cmd: [GET, k]}], subscribe: {channels: [c]}}`, "redis.commands: want exactly one of commands, flow and subscribe"},
		{`{addr: "127.0.0.1:1", subscribe: {channels: []}}`, "redis.subscribe.channels: want at least one channel or pattern"},
	} {
		yaml := "version: 1\ngroups:\n  - id: g\n    runner: redis\n    redis: " + tc.section + "\n    load: {concurrency: 1}\n    duration: 1s\n"
		_, err := plan.ParsePlan("p.yaml", []byte(yaml), nil, testRegistry)
		if err == nil || !strings.Contains(err.Error(), "p.yaml:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant p.yaml:…%s", tc.section, err, tc.want)
		}
	}
}

// TestEmbeddedRefusedInShards: each shard would have a server of its own.
func TestEmbeddedRefusedInShards(t *testing.T) {
	yaml := "version: 1\ngroups:\n  - id: g\n    runner: redis\n    redis: {addr: embedded, commands: [{cmd: [PING]}]}\n    load: {concurrency: 1}\n    duration: 1s\n"
	p, err := plan.ParsePlan("p.yaml", []byte(yaml), nil, testRegistry)
	if err != nil {
		t.Fatal(err)
	}
	err = shardable(p.Groups[0])
	if err == nil || !strings.Contains(err.Error(), "redis.addr") {
		t.Fatalf("got %v, want an error at redis.addr", err)
	}
}

// TestGuardFollowsReplies: the guard passes RESP2 and RESP3 replies of
// any shape under the bound, cut anywhere, and refuses what is over it.
func TestGuardFollowsReplies(t *testing.T) {
	ok := "+OK\r\n:12\r\n$5\r\nhello\r\n$-1\r\n*2\r\n$1\r\na\r\n*1\r\n:1\r\n%1\r\n+k\r\n~1\r\n,1.5\r\n" +
		"|1\r\n+ttl\r\n:3\r\n$2\r\nhi\r\n>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n_\r\n#t\r\n-ERR no\r\n*0\r\n"
	for cut := 1; cut <= len(ok); cut++ {
		g := guard{max: 1024}
		for b := []byte(ok); len(b) > 0; {
			n := min(cut, len(b))
			if err := g.scan(b[:n]); err != nil {
				t.Fatalf("cut %d: %v", cut, err)
			}
			b = b[n:]
		}
		if len(g.stack) != 0 || g.skip != 0 || len(g.line) != 0 || g.size != 0 {
			t.Fatalf("cut %d: left mid-reply: %+v", cut, g)
		}
	}
	for _, bad := range []struct{ in, want string }{
		{"$1025\r\n", "reply larger"},
		{"*1000\r\n", "reply larger"},
		{"*2\r\n$600\r\n" + strings.Repeat("x", 600) + "\r\n$600\r\n", "reply larger"},
		{"?x\r\n", "not a RESP reply"},
		{"$-5\r\n", "not a RESP reply"},
		{"+" + strings.Repeat("x", maxLine+1), "reply larger"},
	} {
		g := guard{max: 1024}
		if err := g.scan([]byte(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%.20q: got %v, want %q", bad.in, err, bad.want)
		}
	}
}
