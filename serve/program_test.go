package serve

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built holds the programs the tests build with `go build`, once per test
// binary, in a folder removed when the tests end (TestMain runs them
// through removeBuilt).
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]string // by package folder
}

// builtProgram returns the path of the program in the package folder pkg
// (relative to serve/), building it on first use.
func builtProgram(t testing.TB, pkg string) string {
	t.Helper()
	built.mu.Lock()
	defer built.mu.Unlock()
	if bin, ok := built.bins[pkg]; ok {
		return bin
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "serve-test-")
		if err != nil {
			t.Fatal(err)
		}
		built.dir, built.bins = dir, map[string]string{}
	}
	bin := filepath.Join(built.dir, fmt.Sprintf("%d-%s", len(built.bins), filepath.Base(pkg)))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	built.bins[pkg] = bin
	return bin
}

// removeBuilt runs the tests, then removes what builtProgram built and
// closes testTransport's idle connections.
type removeBuilt struct{ m *testing.M }

func (r removeBuilt) Run() int {
	defer func() {
		testTransport.CloseIdleConnections() // before goleak looks
		if built.dir != "" {
			_ = os.RemoveAll(built.dir)
		}
	}()
	return r.m.Run()
}
