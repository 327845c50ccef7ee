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
