package serve

import (
	"context"
	"strings"
	"testing"
)

// TestNewcomerUpstreamCollisionSaysWhatToDo (reproduction: an operator
// fronted server-filesystem twice, on two folders, without prefixes; the
// refusal named the duplicate read_text_file and both entries, but not
// the remedy docs/gateway.md gives, a prefix of its own). A name
// collision caused by an upstream's tool says to give that upstream a
// prefix or leave the tool out, by its upstream name.
func TestNewcomerUpstreamCollisionSaysWhatToDo(t *testing.T) {
	t.Parallel()
	a, b := newFakeUpstream(t), newFakeUpstream(t)
	path := writeFile(t, t.TempDir(), "c.yaml", `upstreams:
  - name: files
    stdio: [fake-upstream]
  - name: tmp
    stdio: [fake-upstream]
`)
	opts := testOptions{Options: Options{ConfigPath: path}}
	useFakes(map[string]*fakeUpstream{"files": a, "tmp": b})(&opts)
	_, err := newTestServer(context.Background(), opts)
	if err == nil {
		t.Fatal("two upstreams listing read_file without prefixes started")
	}
	want := `upstream "tmp": duplicate name "read_file": already used by tool "read_file" of upstream "files" (` + path + `:2:5); give upstream "tmp" a prefix of its own (prefix:), or leave its tool out with tools: {exclude: [read_file]}`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v\nwant it to contain %s", err, want)
	}
}
