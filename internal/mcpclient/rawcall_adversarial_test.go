package mcpclient

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
)

// discard is a connection writer that drops what it is given.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// TestAdversarialFast2RawCallsHostileResponseIDs: responses read strictly
// (PlainResponse) are matched to calls as before: one for an id of ours
// never sent, or of another prefix, or a number, or spelt with an escape
// that does not match, reaches no call (ours are taken and dropped,
// others go on to the go-sdk); a call gets the first response with its
// id, with its result's bytes and parse, and a second one is dropped.
func TestAdversarialFast2RawCallsHostileResponseIDs(t *testing.T) {
	t.Parallel()
	r := NewRawCalls(0)
	r.writer(discard{})
	type answer struct {
		res    json.RawMessage
		parsed bool
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		res, parsed, err := r.CallParsed(context.Background(), "tools/call", []byte(`{}`))
		got <- answer{res, parsed != nil, err}
	}()
	id := r.prefix + "1"
	waitPending(r, id)
	for _, tc := range []struct {
		line  string
		taken bool
	}{
		{`{"jsonrpc":"2.0","id":"` + r.prefix + `999","result":{"content":[]}}`, true},
		{`{"jsonrpc":"2.0","id":"mcpctl-0000-1","result":{"content":[]}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, false},
		{`{"jsonrpc":"2.0","id":"` + r.prefix + `\u0031x","result":{"content":[]}}`, true},
		{`{"jsonrpc":"2.0","id":"` + r.prefix + `1","result":{"content":["first"]}}`, true},
		{`{"jsonrpc":"2.0","id":"` + r.prefix + `1","result":{"content":["second"]}}`, true},
	} {
		if taken := r.take([]byte(tc.line)); taken != tc.taken {
			t.Errorf("take(%s) = %v, want %v", tc.line, taken, tc.taken)
		}
	}
	a := <-got
	if a.err != nil || string(a.res) != `{"content":["first"]}` || !a.parsed {
		t.Errorf("the call got %s (parsed: %v), %v; want the first response's result, parsed", a.res, a.parsed, a.err)
	}
}

// waitPending waits until the call with id is registered.
func waitPending(r *RawCalls, id string) {
	for {
		r.mu.Lock()
		_, ok := r.pending[id]
		r.mu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}
