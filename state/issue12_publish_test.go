package state

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// durableFiles lists the files of the state folder dir (slash-separated,
// relative) that Publish must not write between checkpoints: everything
// but the journal and the bundle cache.
func durableFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel != fJournal && !strings.HasPrefix(rel, dBundles+"/") {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIssue12PublishOneDurableWrite (reproduction: BenchmarkIssue12Publish
// WithState measured a publish with --state at 2.0× one without, ~5.3
// durable writes each: the contract, the bundle, the tool memory and
// published.json, each written, fsynced and renamed, then a journal line,
// fsynced). A publish is now one journal line and one fsync: the contract
// and bundle ride in the line; the other files are written at checkpoints
// (every compactAfter publishes and at Close). A reopened state has every
// publish all the same.
func TestIssue12PublishOneDurableWrite(t *testing.T) {
	t.Parallel()
	dir, c := stateDir(t), newClock()
	st := open(t, dir, c, 2)
	bundle := func(s string) *Bundle {
		return &Bundle{Config: "c.yaml", Files: map[string][]byte{"c.yaml": []byte(s)}}
	}
	for _, l := range []struct{ prop, tools string }{{"a", "x,y"}, {"b", "x"}, {"c", "x,z"}} {
		lock := contract(t, l.prop, nil, strings.Split(l.tools, ",")...)
		if _, err := st.Publish(Record{Contract: lock, Bundle: bundle(l.prop)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := durableFiles(t, dir); len(got) > 0 {
		t.Errorf("publishes wrote %q besides the journal and the bundle cache", got)
	}
	// A crash now (no Close): a second State reads the folder as it is.
	re := open(t, dir, c, 2)
	defer re.Close()
	if got := re.Last(); got == nil || got.Seq != 3 || got.Contract.Set.Lookup("z") == nil {
		t.Fatalf("reopened: last %+v, want seq 3 with tool z", got)
	}
	if _, _, ok := re.LastPublished("y"); !ok {
		t.Error("the memory of tool y, removed by publish 2, was lost")
	}
	cfg, ok := re.LastBundle()
	if b, _ := os.ReadFile(cfg); !ok || string(b) != "c" {
		t.Errorf("last bundle %q (%v), want c", b, ok)
	}
	st.Close()
}

// TestIssue12PublishCrashRecovery: a crash anywhere in a publish or a
// checkpoint leaves a consistent last publish: the journal line cut short
// (the publish is lost, the previous one is current, its bundle intact);
// the bundle cache torn (rewritten from the journal); a checkpoint cut
// after published.json but before the journal was rewritten (each publish
// counted once).
func TestIssue12PublishCrashRecovery(t *testing.T) {
	t.Parallel()
	bundle := func(s string) *Bundle {
		return &Bundle{Config: "c.yaml", Files: map[string][]byte{"c.yaml": []byte(s)}}
	}
	publish := func(t *testing.T, st *State, prop string) {
		t.Helper()
		if _, err := st.Publish(Record{Contract: contract(t, prop, nil, "x"), Bundle: bundle(prop)}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("journal line cut short", func(t *testing.T) {
		dir, c := stateDir(t), newClock()
		st := open(t, dir, c, 2)
		publish(t, st, "a")
		before, _ := os.ReadFile(filepath.Join(dir, fJournal))
		publish(t, st, "b")
		after, _ := os.ReadFile(filepath.Join(dir, fJournal))
		// The second line's first half reached the disk, its bundle cache too.
		if err := os.WriteFile(filepath.Join(dir, fJournal), after[:len(before)+(len(after)-len(before))/2], 0o600); err != nil {
			t.Fatal(err)
		}
		re := open(t, dir, c, 2)
		defer re.Close()
		got := re.Last()
		cfg, _ := re.LastBundle()
		b, _ := os.ReadFile(cfg)
		if d := cmp.Diff([]any{int64(1), "a"}, []any{got.Seq, string(b)}); d != "" {
			t.Errorf("last publish mismatch (-want +got):\n%s", d)
		}
		if len(re.Warnings()) != 1 {
			t.Errorf("warnings %v, want the torn line", re.Warnings())
		}
		st.Close()
	})
	t.Run("bundle cache torn", func(t *testing.T) {
		dir, c := stateDir(t), newClock()
		st := open(t, dir, c, 2)
		publish(t, st, "a")
		publish(t, st, "b")
		cfg, _ := st.LastBundle()
		if err := os.WriteFile(cfg, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		re := open(t, dir, c, 2)
		defer re.Close()
		cfg, _ = re.LastBundle()
		if b, _ := os.ReadFile(cfg); string(b) != "b" {
			t.Errorf("bundle %q after a torn cache, want b", b)
		}
		st.Close()
	})
	t.Run("checkpoint cut before the journal rewrite", func(t *testing.T) {
		dir, c := stateDir(t), newClock()
		st := open(t, dir, c, 2)
		publish(t, st, "a")
		publish(t, st, "b")
		journal, _ := os.ReadFile(filepath.Join(dir, fJournal))
		if err := st.Close(); err != nil { // checkpoints
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fJournal), journal, 0o600); err != nil {
			t.Fatal(err)
		}
		re := open(t, dir, c, 2)
		defer re.Close()
		if h := re.History(); len(h) != 2 || h[0].Seq != 1 || h[1].Seq != 2 {
			t.Errorf("history %+v, want seq 1 and 2 once each", h)
		}
		publish(t, re, "c")
		if got := re.Last().Seq; got != 3 {
			t.Errorf("next publish seq %d, want 3", got)
		}
	})
}
