package serve

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// kitGateway starts a gateway whose upstream "kit" is the test kit's
// mutable upstream over in-memory transports.
func kitGateway(t *testing.T, config string, tweak ...func(*testOptions)) (*Server, *upstreamtest.Upstream, *reloads) {
	t.Helper()
	u := upstreamtest.New(nil, upstreamtest.DefaultTools()...)
	r := newReloads()
	hook := func(o *testOptions) {
		o.upstreamTransport = func(string) func() mcp.Transport {
			return func() mcp.Transport {
				tr, err := u.Transport(context.Background())
				if err != nil {
					t.Error(err)
				}
				return tr
			}
		}
	}
	s, _ := startServer(t, config, append([]func(*testOptions){hook, r.hook}, tweak...)...)
	return s, u, r
}

// A property renamed upstream with the rename declared in the upstream's
// facades: the gate counts the facade as covering the change, so it is
// published, and old calls are translated at the gateway.
func TestGatewayKitRenameCoveredByDeclaredFacadePublished(t *testing.T) {
	t.Parallel()
	s, u, r := kitGateway(t, "upstreams:\n  - {name: kit, stdio: [kit], facades: {echo: {rename: {message: text}}}}\n")
	cs := connectSDK(t, s, nil)
	if err := u.RenameProperty("echo", "message", "text"); err != nil {
		t.Fatal(err)
	}
	res := r.waitFor(t, "the rename", func(res ReloadResult) bool { return res.Trigger == "upstream:kit" && res.Result != ResultUnchanged })
	if res.Result != ResultPublished {
		t.Fatalf("reload %s (%s), want published (the declared facade covers the rename)", res.Result, res.Reason)
	}
	text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"})
	if isErr || !strings.Contains(text, `"text":"hi"`) {
		t.Errorf("old call: %v %q, want it translated to text", isErr, text)
	}
}

// The same rename undeclared, with gate.upstream: auto-facade: quarantined,
// and the old call is translated by diff's verified suggestion.
func TestGatewayKitRenameQuarantinedAndAutoTranslated(t *testing.T) {
	t.Parallel()
	s, u, r := kitGateway(t, "upstreams:\n  - {name: kit, stdio: [kit]}\ngate: {upstream: auto-facade}\n")
	cs := connectSDK(t, s, nil)
	if err := u.RenameProperty("echo", "message", "text"); err != nil {
		t.Fatal(err)
	}
	res := r.waitFor(t, "the rename", func(res ReloadResult) bool { return res.Trigger == "upstream:kit" && res.Result != ResultUnchanged })
	if res.Result != ResultQuarantined {
		t.Fatalf("reload %s (%s), want quarantined", res.Result, res.Reason)
	}
	text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi", "mode": "loud"})
	if isErr || !strings.Contains(text, `"text":"hi"`) {
		t.Errorf("old call: %v %q, want it translated to text", isErr, text)
	}
}

// An upstream tool the gateway cannot serve (its schema does not compile)
// refuses the candidate with an error naming the upstream; the live
// generation stays.
func TestGatewayKitInvalidUpstreamToolRefusedLocated(t *testing.T) {
	t.Parallel()
	s, u, r := kitGateway(t, "upstreams:\n  - {name: kit, stdio: [kit]}\n")
	v := s.Live().Version
	if err := u.Add(&mcp.Tool{Name: "bad name!", InputSchema: map[string]any{"type": "object"}}); err != nil {
		t.Fatal(err)
	}
	res := r.waitFor(t, "the refusal", func(res ReloadResult) bool { return res.Trigger == "upstream:kit" && res.Result != ResultUnchanged })
	if res.Result != ResultRefused || s.Live().Version != v || len(res.Errors) == 0 || !strings.Contains(res.Errors[0], `upstream "kit"`) {
		t.Errorf("reload %s, errors %q, want refused naming upstream \"kit\"", res.Result, res.Errors)
	}
}

// A declared facade and the diff's verified suggestion for the same tool
// both translate. Reproduction: facades: {echo: {rename: {message: text}}}
// with gate.upstream: auto-facade; the upstream renames message→text
// (published: the facade covers it), then text→message (quarantined): the
// declared block replaced the suggestion (text→message), so every call
// failed, {"text": …} in the advertised shape too.
func TestGatewayKitDeclaredFacadeAndAutoFacadeBothTranslate(t *testing.T) {
	t.Parallel()
	s, u, r := kitGateway(t, "upstreams:\n  - {name: kit, stdio: [kit], facades: {echo: {rename: {message: text}}}}\ngate: {upstream: auto-facade}\n")
	cs := connectSDK(t, s, nil)
	if err := u.RenameProperty("echo", "message", "text"); err != nil {
		t.Fatal(err)
	}
	if res := r.waitFor(t, "the rename", func(res ReloadResult) bool { return res.Trigger == "upstream:kit" && res.Result != ResultUnchanged }); res.Result != ResultPublished {
		t.Fatalf("reload %s (%s), want published", res.Result, res.Reason)
	}
	if err := u.RenameProperty("echo", "text", "message"); err != nil {
		t.Fatal(err)
	}
	if res := r.waitFor(t, "the rename back", func(res ReloadResult) bool { return res.Trigger == "upstream:kit" && res.Result != ResultUnchanged }); res.Result != ResultQuarantined {
		t.Fatalf("reload %s (%s), want quarantined", res.Result, res.Reason)
	}
	for _, args := range []map[string]any{{"text": "hi"}, {"message": "hi"}} {
		text, isErr := sdkCall(t, cs, "echo", args)
		if isErr || !strings.Contains(text, `"message":"hi"`) {
			t.Errorf("call %v: %v %q, want it translated to message", args, isErr, text)
		}
	}
}
