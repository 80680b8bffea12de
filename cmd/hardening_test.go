package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardening01HugeNumberCommands: numbers jsonschema v6 cannot represent
// (1e1000000000 and the like) in recorded arguments or in a schema made
// replay, lint and diff exit 3 on a nil *big.Rat; they are located findings
// (exit 1), never an internal error.
func TestHardening01HugeNumberCommands(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"1e1000000000", "-1e1000000000", "1e-1000000000", "1E+999999999999"} {
		dir := t.TempDir()
		write := func(name, text string) string {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
		ok := write("ok.json", `{"tools":[{"name":"num","inputSchema":{"type":"object","properties":{"a":{"type":"number","minimum":0}}}}]}`)
		huge := write("huge.json", `{"tools":[{"name":"num","inputSchema":{"type":"object","properties":{"a":{"type":"number","multipleOf":`+n+`}}}}]}`)
		calls := write("calls.jsonl", `{"tool":"num","arguments":{"a":`+n+`}}`+"\n")
		runs := []struct {
			args []string
			want string
		}{
			{[]string{"replay", calls, "--against", ok}, "/a: number " + n + " is out of range"},
			{[]string{"lint", huge}, "/inputSchema/properties/a/multipleOf"},
			{[]string{"diff", ok, huge}, "/properties/a/multipleOf: number " + n + " is out of range"},
		}
		for _, r := range runs {
			var out, errOut bytes.Buffer
			code := Main(r.args, strings.NewReader(""), &out, &errOut)
			if code != ExitFindings || !strings.Contains(out.String(), r.want) {
				t.Errorf("mcpctl %s (%s): exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", r.args[0], n, code, ExitFindings, r.want, out.String(), errOut.String())
			}
		}
	}
}

// TestHardening03MaxFileSizeFlag: --max-file-size bounds every config and
// include read; a size that is not positive is a usage error (exit 2).
func TestHardening03MaxFileSizeFlag(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0", "-1"} {
		var out, errOut bytes.Buffer
		code := Main([]string{"serve", "--max-file-size", v, "mcpctl.serve.yaml"}, strings.NewReader(""), &out, &errOut)
		if code != ExitInput || !strings.Contains(errOut.String(), "--max-file-size must be a positive number of bytes") {
			t.Errorf("--max-file-size %s: exit %d, stderr %q", v, code, errOut.String())
		}
	}
}
