package mcpclient

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var splitWordsTests = []struct {
	name string
	line string
	want []string
	err  string // substring of the error; "" means no error
	// newline marks a deliberate difference from sh: an unquoted newline
	// separates words here, where a shell would end the command.
	newline bool
}{
	{name: "empty", line: "", want: nil},
	{name: "blanks only", line: " \t\n ", want: nil, newline: true},
	{name: "plain", line: "npx -y pkg", want: []string{"npx", "-y", "pkg"}},
	{name: "runs of blanks", line: "  a \t b\n\nc  ", want: []string{"a", "b", "c"}, newline: true},
	{name: "single quotes keep blanks", line: `cmd 'a b'`, want: []string{"cmd", "a b"}},
	{name: "single quotes keep backslash and double quote", line: `'a\b"c'`, want: []string{`a\b"c`}},
	{name: "double quotes keep blanks and single quote", line: `"it's here"`, want: []string{"it's here"}},
	{name: "double quote escapes", line: `"a\"b\\c\$d\` + "`" + `e"`, want: []string{"a\"b\\c$d`e"}},
	{name: "double quote keeps other backslashes", line: `"a\nb\x"`, want: []string{`a\nb\x`}},
	{name: "double quote line continuation", line: "\"a\\\nb\"", want: []string{"ab"}},
	{name: "backslash outside quotes", line: `a\ b c\"d \'e\\`, want: []string{"a b", `c"d`, "'e\\"}},
	{name: "line continuation outside quotes", line: "ab\\\ncd e", want: []string{"abcd", "e"}},
	{name: "line continuation between words", line: "a \\\n b", want: []string{"a", "b"}},
	{name: "adjacent quotes join", line: `"a"'b'c"d e"`, want: []string{"abcd e"}},
	{name: "empty quotes are words", line: `a "" '' b`, want: []string{"a", "", "", "b"}},
	{name: "quoted operators are literal", line: `echo '|' "&&" \; '<x>' "(y)"`, want: []string{"echo", "|", "&&", ";", "<x>", "(y)"}},
	{name: "no expansion", line: `srv $HOME ~ *.json #tag`, want: []string{"srv", "$HOME", "~", "*.json", "#tag"}},
	{name: "utf-8", line: `grüße 'día ü'`, want: []string{"grüße", "día ü"}},
	{name: "equals and flags", line: `--dir=/tmp/a\ b -x=1`, want: []string{"--dir=/tmp/a b", "-x=1"}},

	{name: "unterminated single quote", line: `a 'bc`, err: "byte offset 2: unterminated single quote"},
	{name: "unterminated double quote", line: `a "b\"`, err: "byte offset 2: unterminated double quote"},
	{name: "trailing backslash", line: `a b\`, err: "byte offset 3: trailing backslash"},
	{name: "pipe", line: `a | b`, err: `byte offset 2: unquoted '|'`},
	{name: "and-list", line: `cd x && srv`, err: `byte offset 5: unquoted '&'`},
	{name: "semicolon", line: `a;b`, err: `unquoted ';'`},
	{name: "redirect", line: `srv 2>/dev/null`, err: `unquoted '>'`},
	{name: "subshell", line: `(srv)`, err: `unquoted '('`},
	{name: "backquote", line: "a `b`", err: "unquoted '`'"},
}

func TestSplitWords(t *testing.T) {
	t.Parallel()
	for _, tt := range splitWordsTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitWords(tt.line)
			if tt.err != "" {
				if err == nil {
					t.Fatalf("SplitWords(%q) = %q, want an error containing %q", tt.line, got, tt.err)
				}
				if !errors.Is(err, ErrWords) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("SplitWords(%q) error = %v, want ErrWords containing %q", tt.line, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SplitWords(%q): %v", tt.line, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("SplitWords(%q) mismatch (-want +got):\n%s", tt.line, d)
			}
		})
	}
}

// TestSplitWordsMatchesShell checks the valid cases against a real POSIX
// shell, for lines the shell would not expand.
func TestSplitWordsMatchesShell(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh not found:", err)
	}
	for _, tt := range splitWordsTests {
		if tt.err != "" || tt.newline || strings.ContainsAny(tt.line, "$~*?[#") {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			script := "set -- " + tt.line + "\nfor a; do printf '%s\\0' \"$a\"; done"
			out, err := exec.Command(sh, "-c", script).Output()
			if err != nil {
				t.Fatalf("sh -c %q: %v", script, err)
			}
			var fromShell []string
			if len(out) > 0 {
				fromShell = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			}
			got, err := SplitWords(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(fromShell, got); d != "" {
				t.Errorf("SplitWords(%q) differs from sh mismatch (-want +got):\n%s", tt.line, d)
			}
		})
	}
}

func TestJoinWordsRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		words []string
		want  string
	}{
		{words: []string{"npx", "-y", "@scope/pkg@1.0.0", "/tmp/dir"}, want: "npx -y @scope/pkg@1.0.0 /tmp/dir"},
		{words: []string{"a b", "", "it's", `x\y`, `"q"`, "a|b", "tab\tnl\n"}, want: `'a b' '' 'it'\''s' 'x\y' '"q"' 'a|b' '` + "tab\tnl\n" + `'`},
		{words: []string{"$HOME", "~", "*"}, want: "$HOME ~ *"},
		{words: nil, want: ""},
	}
	for _, tt := range tests {
		got := JoinWords(tt.words)
		if got != tt.want {
			t.Errorf("JoinWords(%q) = %q, want %q", tt.words, got, tt.want)
		}
		back, err := SplitWords(got)
		if err != nil {
			t.Fatalf("SplitWords(JoinWords(%q)): %v", tt.words, err)
		}
		if d := cmp.Diff(tt.words, back); d != "" {
			t.Errorf("SplitWords(JoinWords(%q)) mismatch (-want +got):\n%s", tt.words, d)
		}
	}
}
