package cmd

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionFile is the part of action.yml a composite action runs.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// evalExpr evaluates the expressions action.yml uses: inputs.NAME,
// github.NAME and a || b (the first non-empty).
func evalExpr(t *testing.T, e string, inputs, github map[string]string) string {
	for _, alt := range strings.Split(e, "||") {
		alt = strings.TrimSpace(alt)
		var v string
		var ok bool
		if name, isInput := strings.CutPrefix(alt, "inputs."); isInput {
			v, ok = inputs[name]
		} else if name, isGitHub := strings.CutPrefix(alt, "github."); isGitHub {
			v, ok = github[name], true
		}
		if !ok {
			t.Fatalf("action.yml: unknown expression %q", alt)
		}
		if v != "" {
			return v
		}
	}
	return ""
}

// runAction runs action.yml's steps in dir as a GitHub runner would
// (inputs with their defaults, env expressions expanded, GITHUB_PATH applied
// between steps), with the test binary standing in for the release (see
// TestMain), and returns the last step's exit code, its output and the job
// summary.
func runAction(t *testing.T, dir string, with map[string]string) (int, string, string) {
	t.Helper()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "mcpctl")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	return runSteps(t, dir, with, []string{"MCPCTL_ACTION_BINARY=" + bin}, -1)
}

// runSteps runs the first n steps of action.yml (all when n < 0) with extra
// environment.
func runSteps(t *testing.T, dir string, with map[string]string, extraEnv []string, n int) (int, string, string) {
	t.Helper()
	root, _ := filepath.Abs("..")
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) != 2 {
		t.Fatalf("action.yml: want a composite action of two steps, got %q with %d", a.Runs.Using, len(a.Runs.Steps))
	}
	inputs := map[string]string{}
	for k, in := range a.Inputs {
		inputs[k] = in.Default
	}
	for k, v := range with {
		if _, ok := inputs[k]; !ok {
			t.Fatalf("action.yml has no input %q", k)
		}
		inputs[k] = v
	}
	tmp := t.TempDir()
	pathFile, summary := filepath.Join(tmp, "path"), filepath.Join(tmp, "summary.md")
	for _, f := range []string{pathFile, summary} {
		os.WriteFile(f, nil, 0o644)
	}
	github := map[string]string{"base_ref": "main"}
	var code int
	var out []byte
	steps := a.Runs.Steps
	if n >= 0 {
		steps = steps[:n]
	}
	for _, st := range steps {
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash", st.Name, st.Shell)
		}
		paths, _ := os.ReadFile(pathFile)
		env := append(os.Environ(), "GITHUB_ACTION_PATH="+root, "GITHUB_PATH="+pathFile, "GITHUB_STEP_SUMMARY="+summary,
			"RUNNER_TEMP="+tmp, "NO_COLOR=1",
			"PATH="+strings.ReplaceAll(strings.TrimSpace(string(paths)), "\n", ":")+":"+os.Getenv("PATH"))
		env = append(env, extraEnv...)
		for k, v := range st.Env {
			env = append(env, k+"="+expr.ReplaceAllStringFunc(v, func(m string) string {
				return evalExpr(t, expr.FindStringSubmatch(m)[1], inputs, github)
			}))
		}
		cmd := exec.Command("bash", "-e", "-c", st.Run)
		cmd.Dir, cmd.Env = dir, env
		out, err = cmd.CombinedOutput()
		code = cmd.ProcessState.ExitCode()
		if err != nil && code == 0 {
			t.Fatalf("step %q: %v", st.Name, err)
		}
		if code != 0 {
			break
		}
	}
	sum, _ := os.ReadFile(summary)
	return code, string(out), string(sum)
}

// gitRepo makes a clone whose origin/main holds base as tools.lock.json and
// whose checked-out branch holds head.
func gitRepo(t *testing.T, base, head string) string {
	t.Helper()
	upstream, clone := t.TempDir(), t.TempDir()
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(upstream, "init", "-q")
	os.WriteFile(filepath.Join(upstream, "tools.lock.json"), []byte(base), 0o644)
	git(upstream, "add", ".")
	git(upstream, "commit", "-qm", "base")
	git(clone, "clone", "-q", upstream, ".")
	git(clone, "checkout", "-qb", "pr")
	os.WriteFile(filepath.Join(clone, "tools.lock.json"), []byte(head), 0o644)
	return clone
}

// TestGitHubActionSteps runs action.yml with a locally built mcpctl (no
// network): a pull request that removes a tool gets ::error annotations, the
// markdown report in the job summary, and fails at fail-on breaking but not
// at never; a safe change passes.
func TestGitHubActionSteps(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`
	removed := `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
	added := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{"type":"object"}}]}`

	dir := gitRepo(t, base, removed)
	code, out, summary := runAction(t, dir, nil)
	if code != ExitFindings || !strings.Contains(out, "::error") || !strings.Contains(out, "tool-removed") {
		t.Errorf("breaking change: exit %d, output:\n%s", code, out)
	}
	if !strings.HasPrefix(summary, "### ") || !strings.Contains(summary, "**Verdict: fails**") || !strings.Contains(summary, "tool-removed") {
		t.Errorf("job summary is not the markdown report:\n%s", summary)
	}
	if code, out, _ := runAction(t, dir, map[string]string{"fail-on": "never"}); code != 0 {
		t.Errorf("fail-on never: exit %d\n%s", code, out)
	}
	if code, out, _ := runAction(t, gitRepo(t, base, added), nil); code != 0 {
		t.Errorf("safe change: exit %d\n%s", code, out)
	}
}

// TestGitHubActionInstallsRelease runs the install step against a release
// served on loopback (MCPCTL_RELEASE_URL): the archive goreleaser names for
// linux/amd64 is downloaded, checked against checksums.txt and put on the
// PATH; a checksum that does not match fails the step.
func TestGitHubActionInstallsRelease(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"curl", "sha256sum", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	archive := "mcpctl_9.9.9_linux_amd64.tar.gz"
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	script := "#!/bin/sh\necho 'mcpctl v9.9.9 (released)'\n"
	tw.WriteHeader(&tar.Header{Name: "mcpctl", Mode: 0o755, Size: int64(len(script))})
	tw.Write([]byte(script))
	tw.Close()
	gz.Close()
	sum := sha256.Sum256(tgz.Bytes())
	for _, tc := range []struct {
		name, checksum string
		wantCode       int
	}{{"good", hex.EncodeToString(sum[:]), 0}, {"tampered", strings.Repeat("0", 64), 1}} {
		release := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v9.9.9/" + archive:
				w.Write(tgz.Bytes())
			case "/v9.9.9/checksums.txt":
				fmt.Fprintf(w, "%s  %s\n%s  mcpctl_9.9.9_darwin_arm64.tar.gz\n", tc.checksum, archive, strings.Repeat("1", 64))
			default:
				http.NotFound(w, r)
			}
		}))
		code, out, _ := runSteps(t, t.TempDir(), map[string]string{"version": "v9.9.9"},
			[]string{"MCPCTL_RELEASE_URL=" + release.URL, "RUNNER_OS=Linux", "RUNNER_ARCH=X64"}, 1)
		release.Close()
		if code != tc.wantCode || (code == 0) != strings.Contains(out, "mcpctl v9.9.9 (released)") || (code == 0) == strings.Contains(out, "FAILED") {
			t.Errorf("%s checksum: exit %d, want %d; output:\n%s", tc.name, code, tc.wantCode, out)
		}
	}
}
