// Package evloop is the event loop of the epoll clients (`http.client:
// epoll`, `postgres.client: epoll`): loops, one per GOMAXPROCS, each
// owning its share of a step's connections through epoll, without Go's
// netpoller, reading the clock once per wake-up. The loop keeps the
// load's shape (a closed loop's free slots, an open loop's arrivals, the
// pause gate, deadlines, the end of the load and of its grace); a
// protocol's Handler writes its requests and frames its replies.
package evloop
