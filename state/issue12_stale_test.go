package state

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIssue12StalePendingSuperseded (reproduction: every refused
// candidate stayed pending forever, so after three refused edits of one
// config `mcpctl status` offered three fingerprints to approve, two of
// which the config no longer builds). Supersede(keep) drops every other
// pending candidate of the state's config and journals each as
// superseded; a decision about a superseded candidate is refused with
// *SupersededError (ErrSuperseded), also after a restart.
func TestIssue12StalePendingSuperseded(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	fp := func(b string) string { return strings.Repeat(b, 64) }
	for _, f := range []string{fp("a"), fp("b"), fp("c")} {
		if err := st.AddPending(Pending{Fingerprint: f}); err != nil {
			t.Fatal(err)
		}
		c.Advance(1)
		if err := st.Supersede(f); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, p := range st.PendingList() {
		got = append(got, p.Fingerprint)
	}
	if d := cmp.Diff([]string{fp("c")}, got); d != "" {
		t.Errorf("pending mismatch (-want +got):\n%s", d)
	}
	check := func(st *State) {
		t.Helper()
		err := st.Approved(fp("a"), "why", "me", nil)
		var se *SupersededError
		if !errors.As(err, &se) || !errors.Is(err, ErrSuperseded) || se.By != fp("b") {
			t.Errorf("approve of a superseded candidate: %v, want *SupersededError by %s", err, fp("b")[:8])
		}
		if err := st.Rejected(fp("b"), "why", "me"); !errors.Is(err, ErrSuperseded) {
			t.Errorf("reject of a superseded candidate: %v, want ErrSuperseded", err)
		}
		if err := st.Approved(fp("d"), "why", "me", nil); !errors.Is(err, ErrNotPending) || errors.Is(err, ErrSuperseded) {
			t.Errorf("approve of an unknown candidate: %v, want ErrNotPending only", err)
		}
	}
	check(st)
	st.Close()
	re := open(t, dir, c, 1)
	defer re.Close()
	check(re)
	if n := len(re.PendingList()); n != 1 {
		t.Errorf("after a restart %d pending, want 1", n)
	}
}
