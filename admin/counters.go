package admin

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Call outcomes, the outcome label of mcpctl_serve_calls_total and the
// members of CallCounts.
const (
	OutcomeOK      = "ok"      // the handler ran and its result is not an error
	OutcomeError   = "error"   // the handler failed or its output broke its outputSchema
	OutcomeInvalid = "invalid" // the arguments did not validate (no handler ran)
	OutcomeUnknown = "unknown" // no such tool (a protocol error)
)

// Counters are a server's call counters, each kept once: the call path
// adds to them (atomic adds, no lock, no label lookup once a tool's
// ToolCounts is resolved), Status reads them (Calls, Facades) and
// /metrics exports them (Counters is a prometheus.Collector):
// mcpctl_serve_calls_total{tool,outcome} and
// mcpctl_serve_facade_translations_total{tool,rule}. The zero value is
// ready to use.
type Counters struct {
	tools   sync.Map // tool name -> *ToolCounts
	facades sync.Map // facadeKey -> *atomic.Int64
	unknown atomic.Int64
}

// ToolCounts are one tool's call outcomes, since the process started.
type ToolCounts struct {
	OK, Error, Invalid atomic.Int64
}

type facadeKey struct{ tool, rule string }

var (
	callsDesc = prometheus.NewDesc("mcpctl_serve_calls_total",
		"tools/call requests by tool and outcome (ok, error, invalid, unknown; unknown tools are counted with an empty tool label).",
		[]string{"tool", "outcome"}, nil)
	facadesDesc = prometheus.NewDesc("mcpctl_serve_facade_translations_total",
		"Calls carried by a facade, by tool and facade rule (alias, inject, rename, defaults, coerce, values).",
		[]string{"tool", "rule"}, nil)
)

// Tool returns the counts of a tool name, created (at zero) on first use:
// from then on the tool shows in /status and /metrics.
func (c *Counters) Tool(name string) *ToolCounts {
	if v, ok := c.tools.Load(name); ok {
		return v.(*ToolCounts)
	}
	v, _ := c.tools.LoadOrStore(name, &ToolCounts{})
	return v.(*ToolCounts)
}

// AddUnknown counts a call of a tool the server does not have.
func (c *Counters) AddUnknown() { c.unknown.Add(1) }

// AddFacade counts one facade translation step of a call of tool, by
// facade rule (alias, inject, rename, defaults, coerce, values).
func (c *Counters) AddFacade(tool, rule string) {
	key := facadeKey{tool, rule}
	v, ok := c.facades.Load(key)
	if !ok {
		v, _ = c.facades.LoadOrStore(key, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(1)
}

// Calls returns every tool's call outcomes, by tool name.
func (c *Counters) Calls() map[string]CallCounts {
	out := map[string]CallCounts{}
	c.tools.Range(func(k, v any) bool {
		t := v.(*ToolCounts)
		out[k.(string)] = CallCounts{OK: t.OK.Load(), Error: t.Error.Load(), Invalid: t.Invalid.Load()}
		return true
	})
	return out
}

// Facades returns the facade translations by tool, then facade rule.
func (c *Counters) Facades() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	c.facades.Range(func(k, v any) bool {
		key := k.(facadeKey)
		if out[key.tool] == nil {
			out[key.tool] = map[string]int64{}
		}
		out[key.tool][key.rule] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// Describe implements prometheus.Collector.
func (c *Counters) Describe(ch chan<- *prometheus.Desc) {
	ch <- callsDesc
	ch <- facadesDesc
}

// Collect implements prometheus.Collector: the calls of every tool seen
// (each outcome, zeros included), the unknown-tool calls (tool label
// empty) and the facade translations, read at the time of the scrape.
func (c *Counters) Collect(ch chan<- prometheus.Metric) {
	calls := c.Calls()
	for _, tool := range slices.Sorted(maps.Keys(calls)) {
		n := calls[tool]
		counter(ch, callsDesc, n.OK, tool, OutcomeOK)
		counter(ch, callsDesc, n.Error, tool, OutcomeError)
		counter(ch, callsDesc, n.Invalid, tool, OutcomeInvalid)
	}
	counter(ch, callsDesc, c.unknown.Load(), "", OutcomeUnknown)
	for tool, rules := range c.Facades() {
		for rule, n := range rules {
			counter(ch, facadesDesc, n, tool, rule)
		}
	}
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, n int64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(n), labels...)
}

// SideCounts count the calls each side of blue/green rollouts took
// (docs/serve.md#bluegreen), since the process started; a rollout's
// status subtracts the counts at its start. A prometheus.Collector:
// mcpctl_serve_rollout_calls_total{side}.
type SideCounts struct {
	Blue, Green atomic.Int64
}

var sidesDesc = prometheus.NewDesc("mcpctl_serve_rollout_calls_total",
	"tools/call requests taken by each side of a blue/green rollout (blue, green).",
	[]string{"side"}, nil)

// Describe implements prometheus.Collector.
func (c *SideCounts) Describe(ch chan<- *prometheus.Desc) { ch <- sidesDesc }

// Collect implements prometheus.Collector.
func (c *SideCounts) Collect(ch chan<- prometheus.Metric) {
	counter(ch, sidesDesc, c.Blue.Load(), "blue")
	counter(ch, sidesDesc, c.Green.Load(), "green")
}
