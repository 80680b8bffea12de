package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run mcpctl in-process as a command.
func TestMain(m *testing.M) {
	quickRaceExit()
	testscript.Main(m, map[string]func(){
		"mcpctl": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// chatty-mcp-server is a stdio MCP server with one tool that first
		// prints a banner that is not JSON on stdout, as many servers do.
		"chatty-mcp-server": func() { os.Exit(chattyServer()) },
		// silent-mcp-server reads its stdin and never answers.
		"silent-mcp-server": func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) },
	})
}

// quickRaceExit: under -race, every mcpctl a script or an action test
// starts is this race-enabled test binary, which sleeps 1 s before exiting
// unless GORACE says otherwise (a race it detects still fails it, exit 66).
// testscript and os.Environ pass GORACE on to those processes; this one
// read it at start and keeps its own setting.
func quickRaceExit() {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
}

// TestScripts runs the CLI end-to-end scripts in testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("REALDATA", filepath.Join(root, "testdata", "realdata"))
			env.Setenv("CASES", filepath.Join(root, "testdata", "cases"))
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// validjson FILE: the file parses as one JSON value.
			"validjson": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: validjson FILE")
				}
				data := ts.ReadFile(args[0])
				var v any
				err := json.Unmarshal([]byte(data), &v)
				if neg {
					if err == nil {
						ts.Fatalf("%s is valid JSON", args[0])
					}
					return
				}
				if err != nil {
					ts.Fatalf("%s is not valid JSON: %v\n%s", args[0], err, data)
				}
			},
			// exitcode N COMMAND ARGS…: run COMMAND and require exit code N.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 || neg {
					ts.Fatalf("usage: exitcode N COMMAND ARGS…")
				}
				want := atoi(ts, args[0])
				err := ts.Exec(args[1], args[2:]...)
				got := 0
				if err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exec %s: %v", args[1], err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
			// chop FILE: drop the newline at the end of the file (a write
			// cut short).
			"chop": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 || neg {
					ts.Fatalf("usage: chop FILE")
				}
				data := strings.TrimSuffix(ts.ReadFile(args[0]), "\n")
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o644))
			},
			// nlines N FILE: the file has exactly N lines.
			"nlines": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: nlines N FILE")
				}
				n := strings.Count(ts.ReadFile(args[1]), "\n")
				if (n == atoi(ts, args[0])) == neg {
					ts.Fatalf("%s has %d lines", args[1], n)
				}
			},
		},
	})
}

func atoi(ts *testscript.TestScript, s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			ts.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// chattyServer prints "Server starting..." on stdout, then serves one tool,
// "echo", over stdio until its stdin ends.
func chattyServer() int {
	os.Stdout.WriteString("Server starting...\n")
	srv := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "1.0.0"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text."}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}
