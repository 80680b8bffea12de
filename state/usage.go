package state

import (
	"context"
	"maps"
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

func (s *State) loadUsage() error {
	ok, err := s.readJSON(fUsage, &s.usage)
	if err != nil {
		return err
	}
	if !ok || s.usage.Since.IsZero() {
		s.usage.Since = s.now()
		s.dirty = true
	}
	if s.usage.Tools == nil {
		s.usage.Tools = map[string]*Counter{}
	}
	if s.usage.Rules == nil {
		s.usage.Rules = map[string]map[string]*Counter{}
	}
	return nil
}

// Count records one call of tool that used the facade rules named (each a
// rule of the tool's facade block, named as the caller names them
// consistently, e.g. "rename/q" or "alias/search_docs"). It only touches
// memory; Flush (periodic, and at Close) persists the counters.
func (s *State) Count(tool string, rules ...string) {
	now := s.now()
	day := now.Format(dayLayout)
	s.umu.Lock()
	defer s.umu.Unlock()
	bump(s.usage.Tools, tool, day, now)
	if len(rules) > 0 {
		rm := s.usage.Rules[tool]
		if rm == nil {
			rm = map[string]*Counter{}
			s.usage.Rules[tool] = rm
		}
		for _, r := range rules {
			bump(rm, r, day, now)
		}
	}
	s.dirty = true
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
	now := s.now()
	first := now.Add(-period).Format(dayLayout)
	s.umu.Lock()
	defer s.umu.Unlock()
	w := Window{Since: s.usage.Since, Covered: !now.Add(-period).Before(s.usage.Since)}
	c := s.usage.Tools[tool]
	if rule != "" {
		c = s.usage.Rules[tool][rule]
	}
	if c == nil {
		return w
	}
	for day, n := range c.Days {
		if day >= first {
			w.Calls += n
		}
	}
	w.Last = c.Last
	return w
}

// Flush writes the counters to usage.json (atomically, durably) when they
// changed since the last flush, dropping day buckets older than
// Options.UsageDays.
func (s *State) Flush() error {
	s.umu.Lock()
	if !s.dirty {
		s.umu.Unlock()
		return nil
	}
	s.expire()
	snap := usageFile{Since: s.usage.Since, Tools: cloneCounters(s.usage.Tools), Rules: map[string]map[string]*Counter{}}
	for t, rm := range s.usage.Rules {
		snap.Rules[t] = cloneCounters(rm)
	}
	s.dirty = false
	s.umu.Unlock()
	if err := s.writeJSON(fUsage, snap); err != nil {
		s.umu.Lock()
		s.dirty = true
		s.umu.Unlock()
		return err
	}
	return nil
}

// expire drops buckets older than the retention. The caller holds s.umu.
func (s *State) expire() {
	oldest := s.now().AddDate(0, 0, -s.opts.UsageDays).Format(dayLayout)
	drop := func(m map[string]*Counter) {
		for _, c := range m {
			maps.DeleteFunc(c.Days, func(day string, _ int64) bool { return day < oldest })
		}
	}
	drop(s.usage.Tools)
	for _, rm := range s.usage.Rules {
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
