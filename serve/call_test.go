package serve

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callResult is a tools/call result as the raw client sees it.
type callResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
}

func callTool(t *testing.T, c *rawClient, name string, args any) (callResult, *string) {
	t.Helper()
	r := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	if r.Error != nil {
		return callResult{}, &r.Error.Message
	}
	var res callResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

func TestFacadeAtCallTime(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, `tools:
  - name: search_documents
    inputSchema:
      type: object
      properties:
        query: {type: string}
        mode: {enum: [fast, exact]}
      required: [query]
      additionalProperties: false
    handler: {exec: {command: [/bin/cat]}}
    facade:
      rename: {q: query}
      aliases:
        - search_docs
        - {name: find_fast, inject: {mode: fast}}
`)
	c := connected(t, s)
	for _, tc := range []struct {
		tool string
		args string
		want string // the arguments the handler got, or "invalid: …"
	}{
		{"search_documents", `{"query":"a"}`, `{"query":"a"}`},
		{"search_documents", `{"q":"b"}`, `{"query":"b"}`},
		{"search_docs", `{"query":"c"}`, `{"query":"c"}`},
		{"search_docs", `{"q":"d"}`, `{"query":"d"}`},
		{"find_fast", `{"query":"e"}`, `{"mode":"fast","query":"e"}`},
		{"search_documents", `{"p":"f"}`, "invalid: invalid arguments:\n- /p: unexpected property (allowed: query, mode)\n- /query: missing required property; expected a string\nexample of valid arguments: {\"query\":\"x\"}"},
		// Through an alias, the message is about the routed call: its
		// example keeps the injected mode.
		{"find_fast", `{"p":"g"}`, "invalid: routed to search_documents: invalid arguments:\n- /p: unexpected property (allowed: query, mode)\n- /query: missing required property; expected a string\nexample of valid arguments: {\"mode\":\"fast\",\"query\":\"x\"}"},
		{"find_fast", `{"query":"g","mode":"exact"}`, "invalid: routed to search_documents: invalid arguments:\n- (arguments): alias find_fast of search_documents: argument \"mode\" is \"exact\", inject wants \"fast\"\nexample of valid arguments: {\"mode\":\"exact\",\"query\":\"g\"}"},
	} {
		var args map[string]any
		_ = json.Unmarshal([]byte(tc.args), &args)
		res, perr := callTool(t, c, tc.tool, args)
		if perr != nil {
			t.Fatalf("%s %s: protocol error %s", tc.tool, tc.args, *perr)
		}
		got := res.Content[0].Text
		if want, ok := strings.CutPrefix(tc.want, "invalid: "); ok {
			if !res.IsError || got != want {
				t.Errorf("%s %s: %q (isError %v), want the error %q", tc.tool, tc.args, got, res.IsError, want)
			}
			continue
		}
		if res.IsError || got != tc.want {
			t.Errorf("%s %s: handler got %q (isError %v), want %q", tc.tool, tc.args, got, res.IsError, tc.want)
		}
	}
	want := map[string]map[string]int64{"search_documents": {"alias": 3, "inject": 1, "rename": 2}}
	if d := cmp.Diff(want, s.Status().Facades); d != "" {
		t.Errorf("facade counters mismatch (-want +got):\n%s", d)
	}
}

func TestOutputSchema(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	s, _ := startServer(t, `tools:
  - name: good
    inputSchema: {type: object}
    outputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
    handler: {static: {json: {n: 3}}}
  - name: violates
    inputSchema: {type: object}
    outputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
    handler: {exec: {command: [/bin/echo, '{"n":"three"}']}}
  - name: not_json
    inputSchema: {type: object}
    outputSchema: {type: object}
    handler: {exec: {command: [/bin/echo, plain words]}}
  - name: no_schema
    inputSchema: {type: object}
    handler: {static: {json: {n: 3}}}
`, func(o *testOptions) { o.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	c := connected(t, s)
	for _, tc := range []struct {
		tool, text, structured string
		isError                bool
	}{
		{"good", `{"n":3}`, `{"n":3}`, false},
		{"violates", "Tool \"violates\" produced output that violates its own outputSchema:\n- /n: got string, expected an integer", "", true},
		{"not_json", `Tool "not_json" produced output that is not JSON`, "", true},
		{"no_schema", `{"n":3}`, "", false},
	} {
		res, _ := callTool(t, c, tc.tool, map[string]any{})
		if res.IsError != tc.isError || !strings.HasPrefix(res.Content[0].Text, tc.text) || string(res.Structured) != tc.structured {
			t.Errorf("%s: %+v (structured %s), want text %q structured %q isError %v", tc.tool, res, res.Structured, tc.text, tc.structured, tc.isError)
		}
	}
	if st := s.Status().Calls; st["violates"].Error != 1 || st["good"].OK != 1 {
		t.Errorf("call counts %+v", st)
	}
	// The log says where the output failed, never what it held.
	if l := logs.String(); !strings.Contains(l, `"at":["/n"]`) || strings.Contains(l, "three") {
		t.Errorf("log of the violation: want the pointer /n and no value:\n%s", l)
	}
	// A static output that breaks its own outputSchema refuses the
	// candidate: it would fail every call.
	cfg, err := serveconfig.ParseConfig("c.yaml", []byte("tools:\n  - name: s\n    inputSchema: {type: object}\n    outputSchema: {type: object, required: [n]}\n    handler: {static: {json: {m: 1}}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := buildGeneration(cfg, buildOptions{}); err == nil || !strings.Contains(err.Error(), "c.yaml:5:14: tool \"s\": /handler/static: the static output does not match the tool's outputSchema:\n- /n: missing required property") {
		t.Errorf("static output violating its schema: %v", err)
	}
}

func TestExecHandler(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PATH": "/usr/bin:/bin", "ALLOWED": "yes", "SECRET": "hunter2"}
	s, _ := startServer(t, `tools:
  - name: env
    inputSchema: {type: object}
    handler: {exec: {command: [/usr/bin/env], env: [ALLOWED]}}
  - name: slow
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sleep, "30"], timeout: 200ms}}
  - name: chatty
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/cat], maxOutput: 16}}
  - name: fails
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sh, -c, "echo oops >&2; exit 2"]}}
  - name: stdin
    inputSchema: {type: object, properties: {x: {type: integer}}}
    handler: {exec: {command: [/bin/cat]}}
`, func(o *testOptions) {
		o.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	})
	c := connected(t, s)
	res, _ := callTool(t, c, "env", map[string]any{})
	if got := res.Content[0].Text; !strings.Contains(got, "ALLOWED=yes") || !strings.Contains(got, "PATH=/usr/bin:/bin") || strings.Contains(got, "SECRET") {
		t.Errorf("environment %q: want PATH and ALLOWED only", got)
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"slow", `{}`, "did not finish within 200ms"},
		{"chatty", `{"a":"0123456789abcdef"}`, "more than 16 bytes"},
		{"fails", `{}`, "exited with status 2: oops"},
	} {
		var args map[string]any
		_ = json.Unmarshal([]byte(tc.args), &args)
		res, _ := callTool(t, c, tc.tool, args)
		if !res.IsError || !strings.Contains(res.Content[0].Text, tc.want) {
			t.Errorf("%s: %+v, want an error saying %q", tc.tool, res, tc.want)
		}
	}
	res, _ = callTool(t, c, "stdin", map[string]any{"x": 1})
	if res.Content[0].Text != `{"x":1}` {
		t.Errorf("stdin: handler got %q", res.Content[0].Text)
	}
}

// A client's cancellation kills the command: the call ends long before the
// command would.
func TestExecCancelledByClient(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, `tools:
  - name: slow
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sleep, "60"], timeout: 120s}}
`)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		callErr <- err
	}()
	waitUntil(t, "the call to start", func() bool { return s.inflight.count() > 0 })
	cancel() // sends notifications/cancelled
	recvWithin(t, "the cancelled call to return", callErr)
	wctx, wcancel := context.WithTimeout(context.Background(), waitLong)
	defer wcancel()
	if err := s.inflight.wait(wctx); err != nil {
		t.Fatal("the cancelled call kept running (sleep 60 was not killed)")
	}
}

func TestHTTPHandler(t *testing.T) {
	t.Parallel()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/fail" {
			http.Error(w, "backend broke", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"key": r.Header.Get("X-Api-Key"), "ct": r.Header.Get("Content-Type"), "body": string(body)})
	}))
	defer backend.Close()
	cfg := `tools:
  - name: ok
    inputSchema: {type: object}
    handler: {http: {url: "` + backend.URL + `/ok", headers: {X-Api-Key: "Key ${API_KEY}"}}}
  - name: fail
    inputSchema: {type: object}
    handler: {http: {url: "` + backend.URL + `/fail"}}
`
	env := map[string]string{"API_KEY": "k-123"}
	s, _ := startServer(t, cfg, func(o *testOptions) {
		o.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	})
	c := connected(t, s)
	res, _ := callTool(t, c, "ok", map[string]any{"a": 1})
	var got map[string]string
	if err := json.Unmarshal([]byte(res.Content[0].Text), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"key": "Key k-123", "ct": "application/json", "body": `{"a":1}`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("request mismatch (-want +got):\n%s", d)
	}
	res, _ = callTool(t, c, "fail", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "502") || !strings.Contains(res.Content[0].Text, "backend broke") {
		t.Errorf("failing backend: %+v", res)
	}
	// A header secret missing from the environment refuses the candidate.
	delete(env, "API_KEY")
	_, err := buildGeneration(s.Live().Config, buildOptions{getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err == nil || !strings.Contains(err.Error(), "API_KEY is not set") {
		t.Errorf("build without the secret: %v", err)
	}
}
