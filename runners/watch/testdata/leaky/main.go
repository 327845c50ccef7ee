// Command leaky is the test helper of package watch: a small server whose
// memory, connections, output and exit are set by flags, so the tests can
// check the sampler and the process handling against a known truth.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

var retained [][]byte

func main() {
	leakMB := flag.Int("leak-mb", 0, "MiB to allocate, touch and retain every -every")
	every := flag.Duration("every", 200*time.Millisecond, "leak period")
	listen := flag.String("listen", "", "tcp address whose connections are accepted and held open")
	httpAddr := flag.String("http", "", "address of an HTTP server answering 200 on every path")
	readyAfter := flag.Duration("ready-after", 0, "delay before listening and printing -print")
	msg := flag.String("print", "ready", "line printed on stdout once ready (empty: none)")
	lines := flag.Int("lines", 0, "numbered lines printed on stderr at start")
	exitCode := flag.Int("exit", -1, "exit with this code after -exit-after (-1: never)")
	exitAfter := flag.Duration("exit-after", 0, "delay before -exit")
	ignoreTerm := flag.Bool("ignore-term", false, "ignore SIGTERM")
	child := flag.Bool("child", false, "start a child of the same program in the process group and print its pid")
	pidFile := flag.String("pid-file", "", "write the pid to this file, postmaster.pid style")
	flag.Parse()

	if *pidFile != "" {
		body := fmt.Sprintf("%d\n/var/lib/data\n1700000000\n", os.Getpid())
		if err := os.WriteFile(*pidFile, []byte(body), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "pid file:", err)
			os.Exit(2)
		}
	}

	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	for i := 1; i <= *lines; i++ {
		fmt.Fprintf(os.Stderr, "line %d\n", i)
	}
	if *child {
		startChild()
	}
	if *exitCode >= 0 {
		time.AfterFunc(*exitAfter, func() { os.Exit(*exitCode) })
	}
	time.Sleep(*readyAfter)
	if *listen != "" {
		go hold(mustListen(*listen))
	}
	if *httpAddr != "" {
		go serveHTTP(mustListen(*httpAddr))
	}
	if *msg != "" {
		fmt.Println(*msg)
	}
	if *leakMB > 0 {
		leak(*leakMB, *every)
	}
	select {}
}

// leak allocates mb MiB every period, writes every page so it is resident,
// and keeps it.
// leak retains mb MiB for every period passed since it began, counted on
// the wall clock: on a busy machine a late wake-up catches up (a ticker
// drops the ticks it was late for), so the leak rate stays the flags'.
func leak(mb int, period time.Duration) {
	start := time.Now()
	for done := 0; ; done++ {
		for due := int(time.Since(start) / period); done >= due; due = int(time.Since(start) / period) {
			time.Sleep(time.Until(start.Add(time.Duration(done+1) * period)))
		}
		b := make([]byte, mb<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		retained = append(retained, b)
	}
}

// mustListen listens before "ready" is printed, so the line means it.
func mustListen(addr string) net.Listener {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(2)
	}
	return ln
}

// hold accepts connections and keeps them open: one fd per connection.
func hold(ln net.Listener) {
	var conns []net.Conn
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "accept:", err)
			os.Exit(2)
		}
		conns = append(conns, c)
	}
}

func serveHTTP(ln net.Listener) {
	err := http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	}))
	fmt.Fprintln(os.Stderr, "http:", err)
	os.Exit(2)
}

func startChild() {
	cmd := exec.Command(os.Args[0], "-print", "")
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Printf("child %d\n", cmd.Process.Pid)
}
