package state_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/state"
)

// A state folder across a restart: what was published, which contract the
// first candidate is gated against, and the usage of a tool.
func Example() {
	tmp, _ := os.MkdirTemp("", "state")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "st")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	v1, _ := lockfile.Decode("v1", []byte(`{"tools":[{"name":"search","inputSchema":{"type":"object"}}]}`))
	st, _ := state.Open(dir, state.Options{Now: clock})
	p, _ := st.Publish(state.Record{Contract: v1, Allowed: state.Allowance{Kind: state.First}})
	st.Count("search")
	_ = st.Close()

	now = now.Add(8 * 24 * time.Hour)
	st, _ = state.Open(dir, state.Options{Now: clock})
	defer st.Close()
	fmt.Println(st.Last().Seq == p.Seq, st.Last().Allowed.Kind)
	fmt.Println(st.Newest(v1).From) // the baseline is what the state published
	w := st.Usage("search", "", 7*24*time.Hour)
	fmt.Println(w.Calls, w.Last.Format(time.DateOnly), w.Covered)
	// Output:
	// true first
	// state
	// 0 2026-03-01 true
}
