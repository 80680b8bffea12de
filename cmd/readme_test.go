package cmd

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeSection returns the README text under the heading "## name", up to
// the next "## " heading.
func readmeSection(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n## "+name+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q section", "## "+name)
	}
	rest := text[i+len(name)+5:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestIssue10Item12ReadmeSetup pins the README's set-up section (issue 10,
// item 12: it said Go 1.25 while go.mod needs 1.26, and its first command
// was a `go run` that stays silent for minutes on a fresh machine): the Go
// version it names is go.mod's, it has exactly two commands (one builds and
// runs mcpctl on real input, one runs the tests), the first shows build
// progress (go install -v) and the text says the first build takes minutes.
func TestIssue10Item12ReadmeSetup(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	setup := readmeSection(t, "Set up")
	versions := regexp.MustCompile(`Go (\d+\.\d+)`).FindAllStringSubmatch(setup, -1)
	if len(versions) == 0 {
		t.Fatal("the set-up section names no Go version")
	}
	for _, v := range versions {
		if v[1] != string(m[1]) {
			t.Errorf("README set-up says Go %s, go.mod says go %s", v[1], m[1])
		}
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(setup, -1)
	if len(blocks) != 2 {
		t.Fatalf("the set-up section has %d sh blocks, want exactly two", len(blocks))
	}
	first, second := strings.TrimSpace(blocks[0][1]), strings.TrimSpace(blocks[1][1])
	if strings.Contains(first, "\n") || strings.Contains(second, "\n") {
		t.Errorf("each set-up block must be one command:\n%s\n%s", first, second)
	}
	if !strings.HasPrefix(first, "go install -v ./cmd/mcpctl") || !strings.Contains(first, "testdata/realdata/") {
		t.Errorf("first set-up command must build with progress (go install -v) and run mcpctl on real input, got %q", first)
	}
	if second != "go test ./..." {
		t.Errorf("second set-up command = %q, want %q", second, "go test ./...")
	}
	if !strings.Contains(setup, "minutes") {
		t.Error("the set-up section does not say the first build takes minutes")
	}
}

// TestNewcomerReadmeSetupRunsTheInstalledBinary: the first set-up command
// ran "$(go env GOPATH)/bin/mcpctl" after go install, but go install
// writes to $GOBIN when it is set, so a newcomer with GOBIN set ran an
// older mcpctl left in GOPATH/bin (or none). The command must run the
// binary go install wrote: go list's {{.Target}} names it either way.
func TestNewcomerReadmeSetupRunsTheInstalledBinary(t *testing.T) {
	t.Parallel()
	setup := readmeSection(t, "Set up")
	first := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(setup)
	if first == nil {
		t.Fatal("the set-up section has no sh block")
	}
	if strings.Contains(first[1], "go env GOPATH") {
		t.Errorf("the first set-up command runs mcpctl from GOPATH/bin, which go install does not write when GOBIN is set: %q", first[1])
	}
	if !strings.Contains(first[1], `"$(go list -f '{{.Target}}' ./cmd/mcpctl)"`) {
		t.Errorf("the first set-up command must run the binary go install wrote (go list -f '{{.Target}}'): %q", first[1])
	}
}
