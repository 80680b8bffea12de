package toolset

import (
	"context"
	"errors"
	"log/slog"

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
// For streamable HTTP use HTTPTransport instead of Transport: a wrapped
// connection hides the go-sdk's session hook, and without it no standalone
// SSE stream is opened (no list_changed).
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

// WantsNewerProtocol reports whether err, the failure of a connection made
// through this Lister asking for PinnedProtocolVersion, says the server
// only speaks a newer revision (as LoadLive decides it before retrying
// with the go-sdk's newest).
func (l *Lister) WantsNewerProtocol(err error) bool { return wantsNewerProtocol(err, l.c) }

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
