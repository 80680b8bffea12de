package cmd

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// readmeExample is one `$ mcpctl …` line of a console block in README.md
// and the output lines the README shows under it.
type readmeExample struct {
	line int
	args []string
	want []string
}

// offlineCommands are the commands whose README examples run here: they
// read only files of the repository (no server, no network, no stdin).
var offlineCommands = map[string]bool{
	"diff": true, "canon": true, "lint": true, "replay": true, "rules": true, "fixtures": true,
}

// TestNewcomerREADMEExamples runs every README console example that reads
// only the repository's own files and checks that each output line the
// README shows appears in the real output, in order ("…" stands for lines
// or text left out). Reproduction: the README showed "level: breaking
// (1 breaking, 59 safe)" for its first command, which printed 60 safe.
func TestNewcomerREADMEExamples(t *testing.T) {
	// not parallel: changes the working directory and sets COLUMNS, NO_COLOR
	t.Chdir("..")
	t.Setenv("COLUMNS", "160")
	t.Setenv("NO_COLOR", "1")
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeExamples(string(data))
	if len(examples) < 5 {
		t.Fatalf("found %d runnable README examples, want at least 5", len(examples))
	}
	for _, ex := range examples {
		t.Logf("README.md:%d: mcpctl %s", ex.line, strings.Join(ex.args, " "))
		var out, errOut bytes.Buffer
		code := Main(ex.args, strings.NewReader(""), &out, &errOut)
		if code > 1 {
			t.Errorf("README.md:%d: mcpctl %s: exit %d: %s", ex.line, strings.Join(ex.args, " "), code, errOut.String())
			continue
		}
		if missing := firstMissing(ex.want, out.String()+errOut.String()); missing != "" {
			t.Errorf("README.md:%d: mcpctl %s: the README shows %q, which the output does not have (in that order)", ex.line, strings.Join(ex.args, " "), missing)
		}
	}
}

// readmeExamples collects the runnable examples of the console blocks.
func readmeExamples(readme string) []readmeExample {
	var out []readmeExample
	var cur *readmeExample
	inConsole := false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```console"):
			inConsole = true
		case strings.HasPrefix(line, "```"):
			inConsole, cur = false, nil
		case !inConsole:
		case strings.HasPrefix(line, "$ "):
			cur = nil
			if args, ok := runnableArgs(joinContinuation(line[2:], sc, &n)); ok {
				out = append(out, readmeExample{line: n, args: args})
				cur = &out[len(out)-1]
			}
		case cur != nil && strings.TrimSpace(line) != "…":
			cur.want = append(cur.want, line)
		}
	}
	return out
}

// joinContinuation appends the lines a trailing backslash continues.
func joinContinuation(cmd string, sc *bufio.Scanner, n *int) string {
	for strings.HasSuffix(cmd, "\\") && sc.Scan() {
		*n++
		cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(sc.Text())
	}
	return cmd
}

// runnableArgs splits an example command line into mcpctl's arguments when
// it is an offline command without shell syntax whose files all exist.
func runnableArgs(cmd string) ([]string, bool) {
	if i := strings.Index(cmd, " #"); i >= 0 {
		cmd = cmd[:i]
	}
	if strings.ContainsAny(cmd, "|>&$'\"") {
		return nil, false
	}
	f := strings.Fields(cmd)
	if len(f) < 2 || f[0] != "mcpctl" || !offlineCommands[f[1]] {
		return nil, false
	}
	for _, a := range f[2:] {
		if strings.HasPrefix(a, "-") || !strings.ContainsAny(a, "/.") {
			continue
		}
		if _, err := os.Stat(a); err != nil {
			return nil, false
		}
	}
	return f[1:], true
}

// firstMissing returns the first wanted line that has no match in got
// after the previous match, or "". A wanted line matches an output line
// that holds its "…"-separated parts in order.
func firstMissing(want []string, got string) string {
	lines := strings.Split(got, "\n")
	i := 0
	for _, w := range want {
		for i < len(lines) && !holdsInOrder(lines[i], strings.Split(w, "…")) {
			i++
		}
		if i == len(lines) {
			return w
		}
		i++
	}
	return ""
}

func holdsInOrder(line string, parts []string) bool {
	for _, p := range parts {
		j := strings.Index(line, p)
		if j < 0 {
			return false
		}
		line = line[j+len(p):]
	}
	return true
}
