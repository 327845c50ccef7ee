package wsload

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
)

// TestPlanErrorsNameTheField: each bad websocket section is a plan error
// at its line, naming the field.
func TestPlanErrorsNameTheField(t *testing.T) {
	const u = `url: "ws://127.0.0.1:1/x"`
	for _, tc := range []struct{ section, want string }{
		{`{url: "tcp://127.0.0.1:1", messages: [{text: a}]}`, `websocket.url: want a ws:// or wss:// URL`},
		{`{url: "ws://{{seq}}:1/", messages: [{text: a}]}`, `websocket.url: templates may fill`},
		{`{` + u + `, messages: [{text: a, binary: b}]}`, "websocket.messages[0].text: want text or binary"},
		{`{` + u + `, messages: [{text: a, await: {match: "("}}]}`, "websocket.messages[0].await.match: error parsing regexp"},
		{`{` + u + `, messages: [{text: a, no_reply: true, await: {count: 2}}]}`, "websocket.messages[0].no_reply: awaits nothing"},
		{`{` + u + `, messages: [{text: a, capture: {v: {regex: "."}}}]}`, "websocket.messages[0].capture: is for the steps of a flow"},
		{`{` + u + `, flow: [{text: a, capture: {v: {header: X}}}]}`, "websocket.flow[0].capture.v: a WebSocket reply is a message"},
		{`{` + u + `, flow: [{text: "{{.nope}}"}]}`, "websocket.flow[0].text: template"},
		{`{` + u + `, messages: [{text: a}], subscribe: {}}`, "websocket.messages: want exactly one of messages, flow and subscribe"},
		{`{` + u + `, subscribe: {ramp: "x"}}`, "websocket.subscribe.ramp: ramp \"x\""},
		{`{` + u + `, subprotocols: [""], messages: [{text: a}]}`, "websocket.subprotocols: want up to"},
		{`{` + u + `, headers: {"a b": c}, messages: [{text: a}]}`, "websocket.headers:"},
	} {
		yaml := "version: 1\ngroups:\n  - id: g\n    runner: websocket\n    websocket: " + tc.section + "\n    load: {concurrency: 1}\n    duration: 1s\n"
		_, err := plan.ParsePlan("p.yaml", []byte(yaml), nil, testRegistry)
		if err == nil || !strings.Contains(err.Error(), "p.yaml:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant p.yaml:…%s", tc.section, err, tc.want)
		}
	}
}

// TestSubscribeGroupRefusesCounts: subscribers drive themselves, so
// iterations cannot be counted, and only they can sweep subscribers.
func TestSubscribeGroupRefusesCounts(t *testing.T) {
	for yaml, want := range map[string]string{
		"websocket: {url: 'ws://127.0.0.1:1/', subscribe: {}}\n    iterations: 5":                                                                      "iterations",
		"websocket: {url: 'ws://127.0.0.1:1/', messages: [{text: a}]}\n    load: {concurrency: 1}\n    sweep: {subscribers: [1, 2]}\n    duration: 1s": "is for websocket.subscribe",
	} {
		_, err := plan.ParsePlan("p.yaml", []byte("version: 1\ngroups:\n  - id: g\n    runner: websocket\n    "+yaml+"\n"), nil, testRegistry)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %s", yaml, err, want)
		}
	}
}
