package serve

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Attacks on the fast path (fastcall.go, fastlines.go, fasthttp*.go): each
// sends real bytes to a gateway with the fast path and to the same gateway
// without it (hooks.noFastCalls), and wants the same answers.

// sameAnswers sends each line to a fresh session of s (the upstream p
// behind it) and returns the response to each, in order.
func sameAnswers(t *testing.T, s *Server, lines []string) []string {
	t.Helper()
	c := dialStream(t, s)
	c.initialize(true)
	waitUntil(t, "the session initialized", func() bool { return s.initializedForTest(c.ss) })
	var got []string
	for _, l := range lines {
		c.send(l)
		// The progress token the gateway sends upstream is its own
		// (mcpctl-<random>-<n>), random per gateway.
		got = append(got, ownToken.ReplaceAllString(string(c.recv()), "mcpctl-R-"))
	}
	return got
}

var ownToken = regexp.MustCompile(`mcpctl-[0-9a-f]+-`)

// TestAdversarialFastLinesReadsMembersAsTheGoSDK: the go-sdk reads a
// message's members by their exact names (its decoder matches struct
// fields case-sensitively), but the line filter read them with
// encoding/json, which also takes "NAME" for "name" (the last one wins).
// Reproduction, on stdio:
//
//	{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"meta","NAME":"echo",...}}
//
// the go-sdk calls "meta"; the fast path called "echo". Likewise a
// "Method" member turned a tools/list into a tools/call, a "_Meta" member
// hid the progress token the go-sdk relays, and a "RequestId" cancelled
// another call than the one named. Every such line is left to the go-sdk.
func TestAdversarialFastLinesReadsMembersAsTheGoSDK(t *testing.T) {
	p := newProbeUpstream()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"meta","NAME":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","Method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"meta","arguments":{"message":"x"},"_meta":{"progressToken":"p","keep":"k"},"_Meta":{"keep":"k"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"meta","arguments":{"message":"x"},"Arguments":{"message":5}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"meta","name":"echo","arguments":{"message":"x"}}}`,
	}
	slow, _ := startServer(t, probeGatewayConfig, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, p.pipe)
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
	for i, l := range got {
		if !strings.Contains(l, `"result"`) {
			t.Errorf("line %d: no result: %s", i+1, l)
		}
	}
}
