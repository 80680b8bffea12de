package toolset

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Lister reads a live server's tools/list exactly as the server sent it
// (member order and every member the go-sdk does not model kept), over a
// client session the caller owns: the gateway's upstream connections use it
// with the same capture and strict page decoding as LoadLive.
//
//	l := toolset.NewLister("stdio:server")
//	cs, _ := client.Connect(ctx, l.Transport(toolset.CommandTransport(cmd, d, nil)), nil)
//	set, err := l.List(ctx, cs)
//
// A transport wrapped by Transport hides the go-sdk's streamable HTTP
// session hook, so a streamable HTTP connection opens no standalone SSE
// stream (server notifications arrive only with responses): poll such a
// server for changes.
type Lister struct {
	c *capture
	f *fetcher
}

// NewLister returns a Lister whose errors name source.
func NewLister(source string) *Lister {
	return &Lister{c: newCapture(), f: &fetcher{source: source, ep: callerEndpoint{}, log: slog.New(slog.DiscardHandler)}}
}

// Transport wraps t so that List sees the raw results of its connection.
// Wrap a fresh transport for each connection.
func (l *Lister) Transport(t mcp.Transport) mcp.Transport {
	return &captureTransport{inner: t, c: l.c}
}

// HTTPClient returns an HTTP client for a streamable HTTP transport wrapped
// by Transport: it sends h with every request (see WithHeaders) and the
// MCP-Protocol-Version header the server answered in initialize.
func (l *Lister) HTTPClient(base http.RoundTripper, h http.Header) *http.Client {
	return &http.Client{Transport: &versionHeader{base: WithHeaders(base, h), c: l.c}}
}

// List reads every tools/list page over session and returns the tools as
// sent. Errors are as for LoadLive.
func (l *Lister) List(ctx context.Context, session *mcp.ClientSession) (*Set, error) {
	l.c.takePages() // results of an earlier, abandoned listing
	tools, _, err := l.f.listAll(ctx, session, l.c)
	if err != nil {
		var pe *phaseError
		if errors.As(err, &pe) {
			return nil, l.f.failure(ctx, pe.phase, pe.err)
		}
		return nil, err
	}
	return NewSet(l.f.source, tools)
}

// callerEndpoint is the endpoint of a Lister's fetcher: the caller made
// the connection, so there is nothing to start, explain or release.
type callerEndpoint struct{}

func (callerEndpoint) transport(*capture) mcp.Transport { return nil }
func (callerEndpoint) starting() string                 { return "" }
func (callerEndpoint) startFailure(error) string        { return "" }
func (callerEndpoint) details() string                  { return "" }
func (callerEndpoint) release()                         {}
