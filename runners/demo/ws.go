package demo

import (
	"context"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// maxWSMessage bounds a message the demo's WebSocket routes read.
const maxWSMessage = 64 << 10

// registerWebSocket adds the WebSocket stand-ins (runner: websocket) to
// mux; their connections end when done is closed (the server shuts down):
//
//	/ws/echo             answers each message with itself, of its type
//	/ws/feed?rate=R      sends R messages a second (default 20, at most 10000),
//	                     each {"id":N,"ts":MS} with ts its send time in unix
//	                     milliseconds, as /events does; what the client sends
//	                     (a subscription) is read and dropped
func registerWebSocket(mux *http.ServeMux, done <-chan struct{}) {
	mux.HandleFunc("/ws/echo", func(w http.ResponseWriter, r *http.Request) {
		c, ctx, cancel := acceptWS(w, r, done)
		if c == nil {
			return
		}
		defer cancel()
		defer c.CloseNow()
		for {
			typ, b, err := c.Read(ctx)
			if err != nil || c.Write(ctx, typ, b) != nil {
				return
			}
		}
	})
	mux.HandleFunc("/ws/feed", func(w http.ResponseWriter, r *http.Request) {
		rate := queryFloat(r, "rate", 20)
		if rate <= 0 || rate > maxSSERate {
			http.Error(w, "rate must be in (0, 10000]", http.StatusBadRequest)
			return
		}
		c, ctx, cancel := acceptWS(w, r, done)
		if c == nil {
			return
		}
		defer cancel()
		defer c.CloseNow()
		go func() { // drops what the client sends; ends the feed with the connection
			defer cancel()
			// Not ctx: a read whose context ends cuts the connection,
			// and the feed's close (1001) would never reach the client;
			// CloseNow on the handler's way out ends this read.
			rctx := context.WithoutCancel(ctx)
			for {
				if _, _, err := c.Read(rctx); err != nil {
					return
				}
			}
		}()
		feed(ctx, c, time.Duration(float64(time.Second)/rate))
	})
}

// acceptWS upgrades the request (nil when it cannot be); its context
// ends with the request, when done is closed, or when cancel is called.
func acceptWS(w http.ResponseWriter, r *http.Request, done <-chan struct{}) (*websocket.Conn, context.Context, context.CancelFunc) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil, nil, nil
	}
	c.SetReadLimit(maxWSMessage)
	ctx, cancel := context.WithCancel(r.Context())
	if done != nil {
		go func() { // ends with ctx, which the handler cancels on its way out
			select {
			case <-done:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return c, ctx, cancel
}

// feedWriteTimeout bounds one feed message's write.
const feedWriteTimeout = 5 * time.Second

// feed sends a numbered, time-stamped message every period until ctx
// ends, then closes with 1001 (going away). A write does not end with ctx:
// coder/websocket cuts the connection when a write's context ends
// mid-write, and the subscriber would see EOF, not the close.
func feed(ctx context.Context, c *websocket.Conn, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	buf := make([]byte, 0, 64)
	for id := int64(1); ; id++ {
		select {
		case <-ctx.Done():
			_ = c.Close(websocket.StatusGoingAway, "")
			return
		case <-tick.C:
		}
		buf = appendFeedMessage(buf[:0], id, time.Now())
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), feedWriteTimeout)
		err := c.Write(wctx, websocket.MessageText, buf)
		cancel()
		if err != nil {
			return
		}
	}
}
