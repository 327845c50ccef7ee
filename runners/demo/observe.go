package demo

import (
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// registerObservability adds what a real Go server exposes about itself:
// /metrics (the Go runtime's and the process's collectors, and the demo's
// own gauges, on a registry of this handler's) and net/http/pprof under
// /debug/pprof/, so a plan's target `metrics:` and `pprof:` have
// something true to read. The fault no-metrics makes /metrics a 503.
func (h *Handler) registerObservability() {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "demo_sessions_live", Help: "Sessions open in the session store.",
		}, func() float64 { return float64(h.sessions.Live()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "demo_leaked_bytes", Help: "Bytes /leak has retained.",
		}, func() float64 { h.mu.Lock(); defer h.mu.Unlock(); return float64(h.leaked) }),
		lagCollector{h.lag},
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "demo_sse_events_sent_total", Help: "Events /events has written and flushed, of every stream.",
		}, func() float64 { return float64(h.sse.sent.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "demo_sse_streams_open", Help: "Event streams /events holds open now.",
		}, func() float64 { return float64(h.sse.open.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "demo_doctor_fd_cost_per_stream",
			Help: "The doctor's estimate of the file descriptors one SSE stream costs the server (one socket; the fault fd-estimate says otherwise).",
		}, func() float64 { return float64(max(h.faults.FDEstimate, 1)) }),
	)
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	if h.faults.NoMetrics {
		metrics = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "demo fault: no-metrics", http.StatusServiceUnavailable)
		})
	}
	h.mux.Handle("/metrics", metrics)
	h.mux.HandleFunc("/debug/pprof/", pprof.Index)
	h.mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	h.mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	h.mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	h.mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

// lagCollector exports the loop lag of the last whole second as two
// gauges, read together so that both describe the same window.
type lagCollector struct{ lag *loopLag }

var (
	lagP99Desc = prometheus.NewDesc("demo_loop_lag_p99_seconds",
		"The 99th percentile of how late a 10 ms timer ran, over the last whole second (event-loop lag).", nil, nil)
	lagMaxDesc = prometheus.NewDesc("demo_loop_lag_max_seconds",
		"The most a 10 ms timer ran late, over the last whole second.", nil, nil)
)

func (c lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- lagP99Desc; ch <- lagMaxDesc }

func (c lagCollector) Collect(ch chan<- prometheus.Metric) {
	p99, most := c.lag.read()
	ch <- prometheus.MustNewConstMetric(lagP99Desc, prometheus.GaugeValue, p99)
	ch <- prometheus.MustNewConstMetric(lagMaxDesc, prometheus.GaugeValue, most)
}
