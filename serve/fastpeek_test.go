package serve

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
)

// peekCases are upstream results whose peek (what the fast path reads of
// a result) must be what encoding/json reads, whichever way it is taken.
var peekCases = []string{
	`{"content":[{"type":"text","text":"hi"}]}`,
	`{"content":[{"type":"text","text":"hi"}],"isError":true,"structuredContent":{"a":1}}`,
	`{"_meta":{"k":[1, 2],"io.modelcontextprotocol/x":"y"},"content":[]}`,
	`{"_meta":null,"content":null,"isError":null}`,
	`{ "content" : [ { "type" : "image" , "data" : "x" } ] , "isError" : false }`,
	`{"content":[null]}`,
	`{"content":[{"type":null}]}`,
	`{"content":[{"TYPE":"text"}]}`,
	`{"content":[{"type":"text","Type":"image"}]}`,
	`{"content":[],"IsError":true}`,
	`{"content":[],"isError":true,"ISERROR":false}`,
	`{"_meta":{"a":1},"_META":{"b":2},"content":[]}`,
	`{"Content":[{"type":"text"}]}`,
	`{"content":{}}`,
	`{"content":[1]}`,
	`{"isError":"yes","content":[]}`,
	`{"_meta":[],"content":[]}`,
	`{"ſontent":[]}`,
	`[]`,
	`{},"":[]`,
}

// TestPeekParsedAsEncodingJSON: the peek the fast path takes from a
// result already parsed (peekParsed, no second decode) is the one
// encoding/json reads from its bytes, or peekParsed declines it.
func TestPeekParsedAsEncodingJSON(t *testing.T) {
	for _, raw := range peekCases {
		checkPeek(t, []byte(raw))
	}
}

func FuzzPeekParsed(f *testing.F) {
	for _, raw := range peekCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkPeek(t, raw) })
}

// checkPeek checks peekParsed against encoding/json for one result, which
// it takes from a response line, as CallParsed hands it.
func checkPeek(t *testing.T, raw []byte) {
	line := append(append([]byte(`{"jsonrpc":"2.0","id":"x","result":`), raw...), '}')
	v, err := canon.Parse(line)
	if err != nil {
		return // not taken strictly: CallParsed hands no parsed value
	}
	res := v.Get("result")
	// The result is what the line holds as one, which raw need not be all
	// of: {},"":[] makes a line whose result is {} (.ci/run's fuzzing
	// failed on it, comparing encoding/json's reading of raw).
	raw = line[res.Start:res.End]
	var got resultPeek
	if !peekParsed(raw, res, &got) {
		return
	}
	var want resultPeek
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("peekParsed took %s, which encoding/json refuses: %v", raw, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("peek of %s mismatch (-want +got):\n%s", raw, d)
	}
}
