package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWalkthroughReadManySeesIsErrorWhateverTheScheduling (reproduction:
// under load TestGatewayWalkthrough once printed "ok:" before the
// quarantined call's self-healing text). walkthrough.sh runs with
// pipefail, and read_many tested `echo "$out" | grep -q '"isError":true'`:
// grep -q exits at its first match, and when echo had not written all of
// $out by then it died of SIGPIPE, which failed the pipeline, so the
// answer was labelled ok. Here the answer's first line matches and 256 KiB
// follow (more than a pipe holds), so echo is always still writing.
func TestWalkthroughReadManySeesIsErrorWhateverTheScheduling(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	script := `set -euo pipefail
eval "$(sed -n '/^read_many() {/,/^}/p' ../examples/gateway/walkthrough.sh)"
rpc() { printf '{"result":{"isError":true,"content":[{"type":"text","text":"changed"}]}}\n'; head -c 262144 /dev/zero | tr '\0' ' '; echo; }
read_many sid tool '[]'
`
	out, err := exec.Command("bash", "-c", script).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "isError: changed") {
		t.Errorf("read_many printed %q (%v), want %q", out, err, "isError: changed")
	}
}

// TestWalkthroughScriptsHaveNoEarlyExitInAPipeline: the same hazard
// anywhere in the example scripts, the peer benchmarks' scripts and
// .ci/run (all run with pipefail; bench/peers/scale.sh read oasdiff's
// version through head -1): a pipeline
// ending in a reader that may stop before its writer is done.
func TestWalkthroughScriptsHaveNoEarlyExitInAPipeline(t *testing.T) {
	t.Parallel()
	early := regexp.MustCompile(`\|\s*(grep\s+(-\w*[qm]\w*)|head\b)`)
	scripts, err := filepath.Glob("../bench/peers/*.sh")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no peer scripts: %v", err)
	}
	for _, p := range append(scripts, "../examples/gateway/walkthrough.sh", "../examples/hot-reload/walkthrough.sh", "../.ci/run") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := early.FindString(line); m != "" && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				t.Errorf("%s:%d: %q stops reading early: %s", p, i+1, m, strings.TrimSpace(line))
			}
		}
	}
}

// TestNewcomerWalkthroughRPCPrintsEachAnswerOnce (reproduction: the
// gateway walkthrough's step 0 listed every tool twice). rpc turned an
// event stream's "data: {…}" line into "{…}" and then printed it again as
// a line starting with "{", so every answer sent as an event stream came
// out twice; one sent as an application/json body came out once. Both
// example walkthroughs, both kinds of answer.
func TestNewcomerWalkthroughRPCPrintsEachAnswerOnce(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	const answer = `{"jsonrpc":"2.0","id":2,"result":{}}`
	for _, p := range []string{"../examples/gateway/walkthrough.sh", "../examples/hot-reload/walkthrough.sh"} {
		for name, body := range map[string]string{"event stream": "event: message\ndata: " + answer + "\n\n", "json": answer + "\n"} {
			script := `set -euo pipefail
eval "$(sed -n '/^rpc() {/,/^}/p' ` + p + `)"
MCP_URL=http://127.0.0.1:1/mcp sid=sid
curl() { printf '%s' "$BODY"; }
rpc sid '{}'
`
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = append(os.Environ(), "BODY="+body)
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != answer+"\n" {
				t.Errorf("%s, %s: rpc printed %q (%v), want the answer once", p, name, out, err)
			}
		}
	}
}
