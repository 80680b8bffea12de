package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/lockfile"
)

// newClock is the tests' fake clock; Options.Now is its Now.
func newClock() *clocktest.Fake { return clocktest.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// contract builds a lockfile of tools named names, each with one string
// property prop, and the facades ff.
func contract(t testing.TB, prop string, ff facade.File, names ...string) *lockfile.Lock {
	t.Helper()
	var tools []string
	for _, n := range names {
		tools = append(tools, fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{%q:{"type":"string"}}}}`, n, prop))
	}
	data := fmt.Sprintf(`{"tools":[%s]}`, strings.Join(tools, ","))
	lock, err := lockfile.Decode("test", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if ff != nil {
		lock.Facades = ff
	}
	return lock
}

func open(t testing.TB, dir string, c *clocktest.Fake, history int) *State {
	t.Helper()
	st, err := Open(dir, Options{History: history, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func stateDir(t testing.TB) string { return filepath.Join(t.TempDir(), "state") }

// TestStatePublishReopen: three publishes with History 2 survive a restart:
// the last two contracts (tools, facades, fingerprint, time, allowance),
// their bundles, the journal; older contracts and bundles are removed.
func TestStatePublishReopen(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 2)
	var want []*Published
	for i, prop := range []string{"a", "b", "c"} {
		lock := contract(t, prop, facade.File{"search": {Rename: map[string]string{"old" + prop: prop}}}, "search")
		bundle := &Bundle{Config: "serve.yaml", Files: map[string][]byte{
			"serve.yaml":         []byte("# config " + prop + "\n"),
			"schemas/input.json": []byte(`{"v":` + fmt.Sprint(i) + `}`),
		}}
		allowed := Allowance{Kind: AutoSafe}
		if i == 2 {
			allowed = Allowance{Kind: Approval, Reason: "announced in 2.0", Actor: "ops"}
		}
		p, err := st.Publish(Record{Contract: lock, Generation: int64(i + 1), Allowed: allowed, Bundle: bundle})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
		c.Advance(time.Hour)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = open(t, dir, c, 2)
	defer st.Close()
	got := st.History()
	type rec struct {
		Seq, Generation int64
		Fingerprint     string
		Time            time.Time
		Allowed         Allowance
		Facades         facade.File
	}
	view := func(ps []*Published) []rec {
		var out []rec
		for _, p := range ps {
			out = append(out, rec{p.Seq, p.Generation, p.Fingerprint, p.Time, p.Allowed, p.Contract.Facades})
		}
		return out
	}
	if d := cmp.Diff(view(want[1:]), view(got)); d != "" {
		t.Errorf("history mismatch (-want +got):\n%s", d)
	}
	if st.Last().Contract.Set.Fingerprint() != want[2].Fingerprint {
		t.Errorf("last contract's tools differ from the published ones")
	}
	cfg, ok := st.LastBundle()
	if !ok {
		t.Fatal("no last bundle")
	}
	if b, _ := os.ReadFile(cfg); string(b) != "# config c\n" {
		t.Errorf("bundle config %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(filepath.Dir(cfg), "schemas", "input.json")); string(b) != `{"v":2}` {
		t.Errorf("bundle include %q", b)
	}
	// The contracts of the history (gate.transitive), the bundle of the
	// last publish only: no other is ever served.
	for sub, want := range map[string]int{dContracts: 2, dBundles: 1} {
		if entries, _ := os.ReadDir(filepath.Join(dir, sub)); len(entries) != want {
			t.Errorf("%s holds %d entries, want %d", sub, len(entries), want)
		}
	}
	j, err := st.Journal()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range j {
		kinds = append(kinds, fmt.Sprintf("%s %d %s", e.Kind, e.Seq, e.Allowed.Kind))
	}
	if d := cmp.Diff([]string{"published 1 auto-safe", "published 2 auto-safe", "published 3 approval"}, kinds); d != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", d)
	}
}

// TestStateFilesPrivate: the folder is 0700, every file 0600; a folder its
// group or others may write is refused with durable.ErrDirUnsafe.
func TestStateFilesPrivate(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	bundle := &Bundle{Config: "c.yaml", Files: map[string][]byte{"c.yaml": []byte("x")}}
	if _, err := st.Publish(Record{Contract: contract(t, "a", nil, "x"), Bundle: bundle}); err != nil {
		t.Fatal(err)
	}
	st.Count("x")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{Now: c.Now}); !errors.Is(err, durable.ErrDirUnsafe) {
		t.Errorf("Open of a world-writable folder: %v, want ErrDirUnsafe", err)
	}
}

// TestStateBundleConfined: a bundle path that would leave the bundle
// folder, or a config missing from the files, is ErrBundlePath and
// publishes nothing.
func TestStateBundleConfined(t *testing.T) {
	t.Parallel()
	for _, files := range []map[string][]byte{
		{"c.yaml": nil, "../escape.json": nil},
		{"c.yaml": nil, "/abs.json": nil},
		{"c.yaml": nil, "a/../../b.json": nil},
		{"other.yaml": nil},
	} {
		dir, c := stateDir(t), newClock()
		st := open(t, dir, c, 1)
		_, err := st.Publish(Record{Contract: contract(t, "a", nil, "x"), Bundle: &Bundle{Config: "c.yaml", Files: files}})
		if !errors.Is(err, ErrBundlePath) {
			t.Errorf("%v: error %v, want ErrBundlePath", files, err)
		}
		if st.Last() != nil {
			t.Errorf("%v: published anyway", files)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.json")); err == nil {
			t.Errorf("a file was written outside the state folder")
		}
		st.Close()
	}
}

// TestStateJournalTorn: a journal whose last line was cut short (a crash
// mid-append) opens with a warning, the torn bytes dropped, and the next
// entry is a whole line of its own.
func TestStateJournalTorn(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	if _, err := st.Publish(Record{Contract: contract(t, "a", nil, "x")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	jf := filepath.Join(dir, fJournal)
	whole, _ := os.ReadFile(jf)
	f, _ := os.OpenFile(jf, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-03-01T12:00:00Z","kind":"refu`)
	f.Close()

	st = open(t, dir, c, 1)
	defer st.Close()
	ws := st.Warnings()
	var ce *CorruptError
	if len(ws) != 1 || !errors.As(ws[0], &ce) || ce.Offset != int64(len(whole)) || ce.Line != 2 {
		t.Fatalf("warnings %v, want one torn line at byte offset %d, line 2", ws, len(whole))
	}
	if err := st.Refused(st.Last().Fingerprint, nil); err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal()
	if err != nil || len(j) != 2 || j[1].Kind != KindRefused {
		t.Errorf("journal after a torn line: %v %v", j, err)
	}
}

// TestStateJournalMissingNewline: a last entry whole but for its newline
// is kept, without a warning.
func TestStateJournalMissingNewline(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	if _, err := st.Publish(Record{Contract: contract(t, "a", nil, "x")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	jf := filepath.Join(dir, fJournal)
	data, _ := os.ReadFile(jf)
	os.WriteFile(jf, bytes.TrimSuffix(data, []byte("\n")), 0o600)
	st = open(t, dir, c, 1)
	defer st.Close()
	if ws := st.Warnings(); len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
	if err := st.Refused("f", nil); err != nil {
		t.Fatal(err)
	}
	if j, err := st.Journal(); err != nil || len(j) != 2 {
		t.Errorf("journal: %d entries, %v; want 2", len(j), err)
	}
}

// TestStateConcurrentCounts: calls counted while the counters are flushed
// and contracts published are all counted (run with -race).
func TestStateConcurrentCounts(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 2)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				st.Count("x", "rename/q")
			}
		}()
	}
	for i := range 5 {
		if _, err := st.Publish(Record{Contract: contract(t, fmt.Sprint("p", i), nil, "x")}); err != nil {
			t.Fatal(err)
		}
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	st.Close()
	st = open(t, dir, c, 2)
	defer st.Close()
	if w := st.Usage("x", "rename/q", time.Hour); w.Calls != 2000 {
		t.Errorf("counted %d calls, want 2000", w.Calls)
	}
}

// TestStateCorruptFiles: a journal line in the middle that does not
// decode, a published.json or a usage.json that does not decode, a
// contract that is not a lockfile: each is a *CorruptError naming the
// file and where.
func TestStateCorruptFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, data string
		line             int
		offset           int64
	}{
		{"journal line", fJournal, "{\"kind\":\"published\"}\n{\"kind\": nope}\n{\"kind\":\"refused\"}\n", 2, 31},
		{"published", fPublished, "{\"seq\": 1,\n \"history\": [}", 2, 24},
		{"usage", fUsage, "{\"tools\": 3}", 1, 11},
		{"contract", filepath.Join(dContracts, "1.lock.json"), `{"tools": 1}`, 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, c := stateDir(t), newClock()
			if tt.name == "contract" {
				st := open(t, dir, c, 1)
				if _, err := st.Publish(Record{Contract: contract(t, "a", nil, "x")}); err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			p := filepath.Join(dir, tt.file)
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir, Options{Now: c.Now})
			var ce *CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open: %v, want a *CorruptError", err)
			}
			if ce.File != p || ce.Line != tt.line || ce.Offset != tt.offset {
				t.Errorf("located at %s line %d offset %d, want %s line %d offset %d (%v)", ce.File, ce.Line, ce.Offset, p, tt.line, tt.offset, err)
			}
		})
	}
}

// TestStatePending: pending candidates by fingerprint survive a restart;
// rejecting drops and journals one; publishing one drops it; a decision
// about a fingerprint that is not pending is ErrNotPending.
func TestStatePending(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	a, b := contract(t, "a", nil, "x"), contract(t, "b", nil, "x")
	findings := []diff.Change{{Rule: "input-property-removed", Level: diff.Breaking, Tool: "x", Path: "/properties/a", Witness: []byte(`{"a":""}`)}}
	for _, l := range []*lockfile.Lock{a, b} {
		if err := st.AddPending(Pending{Fingerprint: l.Set.Fingerprint(), Findings: findings}); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Minute)
	}
	if err := st.AddPending(Pending{Fingerprint: "../x"}); !errors.Is(err, ErrFingerprint) {
		t.Errorf("AddPending(../x): %v, want ErrFingerprint", err)
	}
	st.Close()
	st = open(t, dir, c, 1)
	defer st.Close()
	list := st.PendingList()
	if len(list) != 2 || list[0].Fingerprint != a.Set.Fingerprint() {
		t.Fatalf("pending after restart: %v", list)
	}
	if p, ok := st.GetPending(a.Set.Fingerprint()); !ok || len(p.Findings) != 1 || p.Findings[0].Path != "/properties/a" || string(p.Findings[0].Witness) != `{"a":""}` {
		t.Errorf("GetPending: %v %v", p, ok)
	}
	if err := st.Rejected(a.Set.Fingerprint(), "not now", "ops"); err != nil {
		t.Fatal(err)
	}
	if err := st.Rejected(a.Set.Fingerprint(), "again", "ops"); !errors.Is(err, ErrNotPending) {
		t.Errorf("second reject: %v, want ErrNotPending", err)
	}
	if err := st.Approved(b.Set.Fingerprint(), "announced", "ops", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Publish(Record{Contract: b, Allowed: Allowance{Kind: Approval, Reason: "announced"}}); err != nil {
		t.Fatal(err)
	}
	if l := st.PendingList(); len(l) != 0 {
		t.Errorf("pending after reject and publish: %v", l)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, dPending)); len(entries) != 0 {
		t.Errorf("pending folder still holds %d files", len(entries))
	}
	j, _ := st.Journal()
	var kinds []string
	for _, e := range j {
		kinds = append(kinds, e.Kind+" "+e.Reason)
	}
	want := []string{"pending ", "pending ", "rejected not now", "approved announced", "published "}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", d)
	}
}

// TestStateUsage: counters per tool and per facade rule, by UTC day, with
// the last call; persisted by Flush and Close; a quiet period the state
// does not cover says so.
func TestStateUsage(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	week := 7 * 24 * time.Hour
	if w := st.Usage("search", "", week); w.Covered || w.Calls != 0 {
		t.Errorf("fresh state: %+v, want not covered, no calls", w)
	}
	st.Count("search", "rename/q")
	st.Count("search")
	last := c.Now()
	c.Advance(10 * 24 * time.Hour)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = open(t, dir, c, 1)
	w := st.Usage("search", "", week)
	if d := cmp.Diff(Window{Calls: 0, Last: last, Since: last, Covered: true}, w); d != "" {
		t.Errorf("10 days later, tool (-want +got):\n%s", d)
	}
	if w := st.Usage("search", "", 30*24*time.Hour); w.Calls != 2 || w.Covered {
		t.Errorf("30-day window: %+v, want 2 calls, not covered", w)
	}
	if w := st.Usage("search", "rename/q", 30*24*time.Hour); w.Calls != 1 {
		t.Errorf("rule: %+v, want 1 call", w)
	}
	st.Count("search", "rename/q")
	if w := st.Usage("search", "rename/q", week); w.Calls != 1 || !w.Last.Equal(c.Now()) {
		t.Errorf("rule after a new call: %+v", w)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// Buckets older than UsageDays are dropped at flush.
	c.Advance(100 * 24 * time.Hour)
	st, err := Open(dir, Options{Now: c.Now, UsageDays: 30})
	if err != nil {
		t.Fatal(err)
	}
	st.Count("other")
	st.Close()
	data, _ := os.ReadFile(filepath.Join(dir, fUsage))
	if bytes.Contains(data, []byte(`"2026-03-01":`)) || bytes.Contains(data, []byte(`"2026-03-11":`)) {
		t.Errorf("usage.json still holds March buckets:\n%s", data)
	}
}

// TestStateLastPublished: a tool removed by a later publish is remembered
// (definition and facade) across a restart.
func TestStateLastPublished(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	ff := facade.File{"old_tool": {Aliases: []facade.Alias{{Name: "older"}}}}
	v1 := contract(t, "a", ff, "old_tool", "kept")
	if _, err := st.Publish(Record{Contract: v1}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Publish(Record{Contract: contract(t, "b", nil, "kept")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = open(t, dir, c, 1)
	defer st.Close()
	tool, fb, ok := st.LastPublished("old_tool")
	if !ok || tool.Fingerprint() != v1.Set.Lookup("old_tool").Fingerprint() {
		t.Fatalf("LastPublished(old_tool): %v %s", ok, tool.Raw)
	}
	if d := cmp.Diff(ff["old_tool"], fb); d != "" {
		t.Errorf("facade mismatch (-want +got):\n%s", d)
	}
	if kept, _, _ := st.LastPublished("kept"); !strings.Contains(string(kept.Raw), `"b"`) {
		t.Errorf("kept: %s, want the last definition", kept.Raw)
	}
	if _, _, ok := st.LastPublished("never"); ok {
		t.Error("LastPublished(never) found something")
	}
}

// TestStateNewest: which contract the first candidate at start is gated
// against.
func TestStateNewest(t *testing.T) {
	t.Parallel()
	a, b, x := contract(t, "a", nil, "t"), contract(t, "b", nil, "t"), contract(t, "x", nil, "t")
	tests := []struct {
		name      string
		published []*lockfile.Lock
		baseline  *lockfile.Lock
		from      string
		want      *lockfile.Lock
	}{
		{"nothing", nil, nil, FromNothing, nil},
		{"baseline only (a new pod)", nil, a, FromBaseline, a},
		{"state only", []*lockfile.Lock{a}, nil, FromState, a},
		{"baseline is the last published", []*lockfile.Lock{a}, a, FromState, a},
		{"baseline published before the last", []*lockfile.Lock{a, b}, a, FromState, b},
		{"baseline never published here", []*lockfile.Lock{a, b}, x, FromBaseline, x},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := open(t, stateDir(t), newClock(), 1)
			defer st.Close()
			for _, l := range tt.published {
				if _, err := st.Publish(Record{Contract: l}); err != nil {
					t.Fatal(err)
				}
			}
			got := st.Newest(tt.baseline)
			if got.From != tt.from || got.Contract != tt.want && got.Contract.Set.Fingerprint() != tt.want.Set.Fingerprint() {
				t.Errorf("Newest: from %q (%s), want %q", got.From, got.Why, tt.from)
			}
		})
	}
}

// TestStateCrashBeforeCommit: a publish cut short after its contract and
// bundle were written but before published.json (the commit point) leaves
// the previous contract current; the next publish takes the leftovers'
// place.
func TestStateCrashBeforeCommit(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 1)
	a := contract(t, "a", nil, "x")
	if _, err := st.Publish(Record{Contract: a, Bundle: &Bundle{Config: "c.yaml", Files: map[string][]byte{"c.yaml": []byte("a")}}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// The leftovers of seq 2.
	os.WriteFile(filepath.Join(dir, dContracts, "2.lock.json"), []byte(`{"tools":[]}`), 0o600)
	os.MkdirAll(filepath.Join(dir, dBundles, "2"), 0o700)
	os.WriteFile(filepath.Join(dir, dBundles, "2", "stale.yaml"), []byte("stale"), 0o600)

	st = open(t, dir, c, 1)
	defer st.Close()
	if got := st.Last(); got == nil || got.Seq != 1 || got.Fingerprint != a.Set.Fingerprint() {
		t.Fatalf("after a crash before the commit point: last %+v, want seq 1", got)
	}
	b := contract(t, "b", nil, "x")
	p, err := st.Publish(Record{Contract: b, Bundle: &Bundle{Config: "c.yaml", Files: map[string][]byte{"c.yaml": []byte("b")}}})
	if err != nil || p.Seq != 2 {
		t.Fatalf("publish: %+v %v", p, err)
	}
	if _, err := os.Stat(filepath.Join(dir, dBundles, "2", "stale.yaml")); err == nil {
		t.Error("a stale bundle file survived the next publish")
	}
}
