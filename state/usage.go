package state

import (
	"context"
	"maps"
	"sync"
	"time"
)

// dayLayout names a usage bucket: one UTC day.
const dayLayout = time.DateOnly

// Counter is the usage of one tool or facade rule: calls per UTC day
// (the last Options.UsageDays days), and the time of the last call.
type Counter struct {
	Days map[string]int64 `json:"days"`
	Last time.Time        `json:"last"`
}

// usageFile is usage.json: Since is when the state began counting (its
// first Open); Tools and Rules (tool → rule → counter) the counters.
type usageFile struct {
	Since time.Time                      `json:"since"`
	Tools map[string]*Counter            `json:"tools"`
	Rules map[string]map[string]*Counter `json:"rules"`
}

// Counters count calls per tool and per facade rule, per UTC day, since
// a time: a State keeps its own, persisted in usage.json; NewCounters
// makes one in memory only (serve without --state), counting from the
// moment it is made. Safe for concurrent use.
type Counters struct {
	now  func() time.Time
	days int

	mu    sync.Mutex
	file  usageFile
	dirty bool
}

// NewCounters returns counters in memory that begin counting at now()
// (nil: time.Now) and keep 90 days of buckets.
func NewCounters(now func() time.Time) *Counters {
	if now == nil {
		now = time.Now
	}
	c := &Counters{now: now, days: 90}
	c.init(false)
	return c
}

// init completes a loaded (or empty) file: Since is set to now when it
// was not counting yet.
func (c *Counters) init(loaded bool) {
	if !loaded || c.file.Since.IsZero() {
		c.file.Since = c.now().UTC()
		c.dirty = true
	}
	if c.file.Tools == nil {
		c.file.Tools = map[string]*Counter{}
	}
	if c.file.Rules == nil {
		c.file.Rules = map[string]map[string]*Counter{}
	}
}

func (s *State) loadUsage() error {
	s.usage = &Counters{now: s.now, days: s.opts.UsageDays}
	ok, err := s.readJSON(fUsage, &s.usage.file)
	if err != nil {
		return err
	}
	s.usage.init(ok)
	return nil
}

// Count records one call of tool that used the facade rules named (each a
// rule of the tool's facade block, named by facade.RuleKey, e.g.
// "/rename/q" or "/aliases/search_docs"). It only touches
// memory; Flush (periodic, and at Close) persists the counters.
func (s *State) Count(tool string, rules ...string) { s.usage.Count(tool, rules...) }

// Count records one call of tool that used the facade rules named.
func (c *Counters) Count(tool string, rules ...string) {
	now := c.now().UTC()
	day := now.Format(dayLayout)
	c.mu.Lock()
	defer c.mu.Unlock()
	bump(c.file.Tools, tool, day, now)
	if len(rules) > 0 {
		rm := c.file.Rules[tool]
		if rm == nil {
			rm = map[string]*Counter{}
			c.file.Rules[tool] = rm
		}
		for _, r := range rules {
			bump(rm, r, day, now)
		}
	}
	c.dirty = true
}

func bump(m map[string]*Counter, key, day string, now time.Time) {
	c := m[key]
	if c == nil {
		c = &Counter{Days: map[string]int64{}}
		m[key] = c
	}
	c.Days[day]++
	if now.After(c.Last) {
		c.Last = now
	}
}

// Window is the usage of a tool or a facade rule within a quiet period
// ending now: Calls in the UTC days the period touches (a whole first
// day is counted, so calls are over-counted by at most one day, never
// missed), the Last call ever (zero: never), Since when the state counts,
// and Covered: whether the state has counted for the whole period (when
// not, no calls does not prove a quiet period).
type Window struct {
	Calls   int64     `json:"calls"`
	Last    time.Time `json:"last,omitzero"`
	Since   time.Time `json:"since"`
	Covered bool      `json:"covered"`
}

// Usage returns the usage of tool (rule "") or of one of its facade rules
// within period (the gate's quietPeriod, 7 days by default).
func (s *State) Usage(tool, rule string, period time.Duration) Window {
	return s.usage.Usage(tool, rule, period)
}

// Usage returns the usage of tool (rule "") or of one of its facade rules
// within period ending now.
func (c *Counters) Usage(tool, rule string, period time.Duration) Window {
	now := c.now().UTC()
	first := now.Add(-period).Format(dayLayout)
	c.mu.Lock()
	defer c.mu.Unlock()
	w := Window{Since: c.file.Since, Covered: !now.Add(-period).Before(c.file.Since)}
	k := c.file.Tools[tool]
	if rule != "" {
		k = c.file.Rules[tool][rule]
	}
	if k == nil {
		return w
	}
	for day, n := range k.Days {
		if day >= first {
			w.Calls += n
		}
	}
	w.Last = k.Last
	return w
}

// Flush writes the counters to usage.json (atomically, durably) when they
// changed since the last flush, dropping day buckets older than
// Options.UsageDays.
func (s *State) Flush() error {
	snap, ok := s.usage.snapshot()
	if !ok {
		return nil
	}
	if err := s.writeJSON(fUsage, snap); err != nil {
		s.usage.mu.Lock()
		s.usage.dirty = true
		s.usage.mu.Unlock()
		return err
	}
	return nil
}

// snapshot returns a copy of the counters, expired buckets dropped, and
// marks them clean; ok is false when nothing changed since the last one.
func (c *Counters) snapshot() (usageFile, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return usageFile{}, false
	}
	c.expire()
	snap := usageFile{Since: c.file.Since, Tools: cloneCounters(c.file.Tools), Rules: map[string]map[string]*Counter{}}
	for t, rm := range c.file.Rules {
		snap.Rules[t] = cloneCounters(rm)
	}
	c.dirty = false
	return snap, true
}

// expire drops buckets older than the retention. The caller holds c.mu.
func (c *Counters) expire() {
	oldest := c.now().UTC().AddDate(0, 0, -c.days).Format(dayLayout)
	drop := func(m map[string]*Counter) {
		for _, k := range m {
			maps.DeleteFunc(k.Days, func(day string, _ int64) bool { return day < oldest })
		}
	}
	drop(c.file.Tools)
	for _, rm := range c.file.Rules {
		drop(rm)
	}
}

func cloneCounters(m map[string]*Counter) map[string]*Counter {
	out := make(map[string]*Counter, len(m))
	for k, c := range m {
		out[k] = &Counter{Days: maps.Clone(c.Days), Last: c.Last}
	}
	return out
}

// FlushEvery flushes the counters every interval until ctx is done; errors
// are logged, and the next tick tries again.
func (s *State) FlushEvery(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Flush(); err != nil {
				s.log.Warn("state: cannot flush usage counters", "err", err)
			}
		}
	}
}
