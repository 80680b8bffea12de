package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/serveconfig"
)

// sameCallConfig declares one tool whose facade has every step kind.
const sameCallConfig = `tools:
  - name: search
    inputSchema:
      type: object
      properties:
        query: {type: string, minLength: 1}
        mode: {enum: [fast, exact]}
        limit: {type: integer, maximum: 100}
        state: {enum: [open, closed]}
      required: [query, limit]
      additionalProperties: false
    handler: {exec: {command: [/bin/cat]}}
    facade:
      rename: {q: query}
      values: {state: {opened: open}}
      coerce: {limit: integer}
      defaults: {limit: 10}
      aliases:
        - search_docs
        - {name: find_fast, inject: {mode: fast}}
`

// answer is what a client learns of one call: the outcome, the message of
// a rejected or unknown-tool call, and the arguments the handler got.
type answer struct {
	Outcome   fixtures.Outcome
	Message   string
	Arguments string
}

// TestServeAndReplayAnswerAlike feeds the same calls to serve (through a
// go-sdk client, in process) and to replay: both must reach the same
// outcome with the same message and the same translated arguments
// (docs/replay.md#outcomes). Before the check was shared, an alias whose
// inject contradicted an argument got callcheck's message from serve but
// the bare facade error from replay.
func TestServeAndReplayAnswerAlike(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, sameCallConfig)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs := newSDKClient(t, ct, "").cs
	cfg, err := serveconfig.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	set, err := cfg.Set()
	if err != nil {
		t.Fatal(err)
	}
	r, err := fixtures.NewReplayer(set, cfg.Facades())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args string }{
		{"search", `{"query":"a","limit":1}`},                   // valid
		{"search", `{"q":"a","limit":1}`},                       // rename
		{"search", `{"query":"a"}`},                             // default
		{"search", `{"query":"a","limit":1,"state":"opened"}`},  // value
		{"search", `{"query":"a","limit":"5"}`},                 // coerce
		{"search_docs", `{"query":"a","limit":1}`},              // alias
		{"find_fast", `{"query":"a","limit":1}`},                // inject
		{"find_fast", `{"query":"a","limit":1,"mode":"exact"}`}, // inject contradicted
		{"search", `{"p":1}`},                                   // untranslatable
		{"find_fast", `{"p":1}`},                                // untranslatable, routed
		{"search", `{"query":"","limit":"x","state":"shut"}`},   // several problems
		{"serch", `{}`},                                         // unknown, close name
		{"nothing_like_it", `{}`},                               // unknown
		{"search", `{"query":"a","limit":1e400}`},               // huge numbers
		{"search", `{"query":"a","limit":123456789012345678901234567890}`},
		{"search", `{"query":"a","limit":"123456789012345678901234567890"}`},
		{"search", `{"query":"a","limit":100.00000000000000000000001}`},
	} {
		served := serveAnswer(t, cs, tc.tool, tc.args)
		replayed := replayAnswer(t, r, tc.tool, tc.args)
		if served != replayed {
			t.Errorf("%s %s:\nserve:  %+v\nreplay: %+v", tc.tool, tc.args, served, replayed)
		}
	}
}

func serveAnswer(t *testing.T, cs *mcp.ClientSession, tool, args string) answer {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		return answer{Outcome: fixtures.UnknownTool, Message: je.Message}
	case err != nil:
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return answer{Outcome: fixtures.Rejected, Message: text}
	}
	return answer{Outcome: fixtures.Accepted, Arguments: compact(t, []byte(text))}
}

// replayAnswer is replay's answer, translated folded into accepted (serve
// does not tell the client its call was translated).
func replayAnswer(t *testing.T, r *fixtures.Replayer, tool, args string) answer {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(args)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	res := r.Replay(&fixtures.Call{File: "t", Line: 1, Tool: tool, Arguments: m, Raw: json.RawMessage(args)})
	a := answer{Outcome: res.Outcome, Arguments: compact(t, []byte(args))}
	switch res.Outcome {
	case fixtures.Translated:
		b, err := json.Marshal(res.Translated.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		a.Outcome, a.Arguments = fixtures.Accepted, compact(t, b)
	case fixtures.Rejected, fixtures.UnknownTool:
		a.Message, a.Arguments = *res.Error, ""
	}
	return a
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return buf.String()
}
