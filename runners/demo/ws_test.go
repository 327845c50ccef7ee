package demo

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestWebSocketStandIns: /ws/echo answers each message with itself;
// /ws/feed sends numbered, time-stamped messages, keeps sending after a
// subscription message, and ends its connections with going away when the
// server's streams end.
func TestWebSocketStandIns(t *testing.T) {
	h := NewHandler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	base := "ws://" + srv.Listener.Addr().String()
	echo, _, err := websocket.Dial(ctx, base+"/ws/echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer echo.CloseNow()
	for _, m := range []string{"a", "bb", "ccc"} {
		if err := echo.Write(ctx, websocket.MessageBinary, []byte(m)); err != nil {
			t.Fatal(err)
		}
		typ, b, err := echo.Read(ctx)
		if err != nil || typ != websocket.MessageBinary || string(b) != m {
			t.Fatalf("echo of %q: %v %q %v", m, typ, b, err)
		}
	}
	_ = echo.Close(websocket.StatusNormalClosure, "")
	feed, _, err := websocket.Dial(ctx, base+"/ws/feed?rate=200", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer feed.CloseNow()
	if err := feed.Write(ctx, websocket.MessageText, []byte(`{"op":"subscribe"}`)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		_, b, err := feed.Read(ctx)
		if err != nil || !strings.HasPrefix(string(b), `{"id":`) || !strings.Contains(string(b), `"ts":`) {
			t.Fatalf("feed message %d: %q %v", i, b, err)
		}
	}
	h.EndStreams()
	for {
		_, _, err := feed.Read(ctx)
		if err == nil {
			continue
		}
		if websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("the feed ended with %v, want going away (1001)", err)
		}
		break
	}
}
