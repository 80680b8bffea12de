package serve

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mcpctl/mcpctl/admin"
)

// metrics are the server's Prometheus metrics, on a registry of its own
// (so several servers can live in one process, as in tests).
type metrics struct {
	reg                  *prometheus.Registry
	reloads              *prometheus.CounterVec
	publishLatency       prometheus.Histogram
	version              prometheus.Gauge
	notifications        prometheus.Counter
	notificationFailures prometheus.Counter
	// calls are the call and facade counters (mcpctl_serve_calls_total,
	// mcpctl_serve_facade_translations_total), read by /status too.
	calls       *admin.Counters
	callLatency *prometheus.HistogramVec
	lists       prometheus.Counter
	panics      *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpctl_serve_reloads_total",
		Help: "Reloads by result: published, unchanged, refused (invalid candidate or gate), superseded (a newer change was already being built).",
	}, []string{"result"})
	m.publishLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "mcpctl_serve_publish_latency_seconds",
		Help:    "Time from the start of a reload (config read) to the atomic publish, for published reloads.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	})
	m.version = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "mcpctl_serve_generation_version",
		Help: "Version of the live generation.",
	})
	m.notifications = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "mcpctl_serve_notifications_sent_total",
		Help: "notifications/tools/list_changed messages delivered to sessions.",
	})
	m.notificationFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "mcpctl_serve_notifications_failed_total",
		Help: "notifications/tools/list_changed messages that could not be delivered (session gone or stalled past the timeout).",
	})
	m.calls = &admin.Counters{}
	m.callLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "mcpctl_serve_handler_duration_seconds",
		Help:    "Time handlers take, by tool.",
		Buckets: prometheus.DefBuckets,
	}, []string{"tool"})
	m.lists = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "mcpctl_serve_lists_total",
		Help: "tools/list requests answered.",
	})
	m.panics = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpctl_serve_panics_total",
		Help: "Panics recovered (bugs, each logged with its stack) by where: call (answered as an isError result), request (a JSON-RPC internal error), reload (the candidate refused).",
	}, []string{"where"})
	m.reg.MustRegister(m.reloads, m.publishLatency, m.version, m.notifications, m.notificationFailures,
		m.calls, m.callLatency, m.lists, m.panics,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// inFlightMetrics export the calls in flight, the count /status reads
// (mcpctl_serve_calls_in_flight), their bound and the calls refused at it.
func (s *Server) inFlightMetrics() []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpctl_serve_calls_in_flight",
			Help: "tools/call requests being handled.",
		}, func() float64 { return float64(s.inflight.count()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpctl_serve_calls_max",
			Help: "The most tools/call requests handled at once (--max-calls; 0: no bound).",
		}, func() float64 { return float64(max(s.opts.MaxCalls, 0)) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "mcpctl_serve_calls_refused_total",
			Help: "tools/call requests answered with an isError result without running, because --max-calls were being handled.",
		}, func() float64 { return float64(s.callsRefused.Load()) }),
	}
}
