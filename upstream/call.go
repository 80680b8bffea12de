package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call forwards one tools/call (params.Name is the server's own tool name)
// and returns the server's result unchanged. It fails at once with an
// *Error wrapping ErrUnavailable while the server is down, and with one
// wrapping ErrTimeout after Options.Timeout; when ctx ends first, the
// go-sdk sends the server notifications/cancelled for the request. With
// progress set, the request carries a progress token of its own and each
// of the server's notifications/progress for it is handed to progress
// (whose caller puts back the downstream token).
func (u *Upstream) Call(ctx context.Context, params *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	c := u.current()
	if c == nil {
		return nil, u.unavailable()
	}
	ctx, cancel := context.WithTimeoutCause(ctx, u.opts.Timeout, ErrTimeout)
	defer cancel()
	p := *params
	if progress != nil {
		tok := "mcpctl-" + strconv.FormatUint(u.tokens.Add(1), 10)
		u.progress.Store(tok, progress)
		// The go-sdk hands notifications to their handler on a goroutine
		// of their own, after the response may have ended the call: one
		// sent before the result is still relayed within progressGrace.
		defer time.AfterFunc(progressGrace, func() { u.progress.Delete(tok) })
		p.Meta = mcp.Meta{}
		for k, v := range params.Meta {
			p.Meta[k] = v
		}
		p.Meta["progressToken"] = tok
	}
	res, err := c.session.CallTool(ctx, &p)
	if err == nil {
		return res, nil
	}
	err = u.redact(err)
	switch {
	case errors.Is(context.Cause(ctx), ErrTimeout):
		return nil, &Error{Name: u.opts.Name, Msg: fmt.Sprintf("no answer within %s", u.opts.Timeout), Err: ErrTimeout}
	case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), u.current() != c:
		return nil, &Error{Name: u.opts.Name, Msg: "the server went away during the call", Err: errors.Join(ErrUnavailable, err)}
	}
	return nil, err
}

// progressGrace is how long a call's progress token stays known after the
// call returned.
const progressGrace = time.Second

// unavailable is the error of a call made while the server is down.
func (u *Upstream) unavailable() error {
	st := u.Status()
	msg := "unavailable (" + st.State + ")"
	if st.LastError != "" {
		msg += ": " + st.LastError
	}
	return &Error{Name: u.opts.Name, Msg: msg, Err: ErrUnavailable}
}

// relayProgress hands a progress notification of the server to the call
// that owns its token.
func (u *Upstream) relayProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	if f, ok := u.progress.Load(tok); ok {
		f.(func(*mcp.ProgressNotificationParams))(req.Params)
	}
}

// stderrLog logs a stdio server's standard error, line by line, at debug
// level (it is the server's own diagnostics).
type stderrLog struct{ log *slog.Logger }

func (s *stderrLog) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		s.log.Debug("upstream stderr", "line", truncate(l))
	}
	return len(p), nil
}

// truncate shortens a line quoted in a log.
func truncate(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
