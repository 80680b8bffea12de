package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpctl/mcpctl/internal/mcpclient"
)

// errStreamEnded is the error of an event stream that ended before the
// request's response (the raw path does not resume streams).
var errStreamEnded = errors.New("the event stream ended before the response")

// stream reads the event stream (WHATWG HTML, "Server-sent events")
// answering the request up to its response, handling the messages before
// it (see CallRaw).
func (ex *rawExchange) stream(ctx context.Context, in io.Reader) (json.RawMessage, error) {
	r := bufio.NewReader(in)
	var ev mcpclient.SSEEvent // read as the go-sdk's client reads it
	for {
		line, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		blank := ev.Line(line)
		// A blank line ends an event, and so does the end of the stream:
		// the go-sdk's client dispatches the event a stream ends in.
		if (blank || err != nil) && ev.Message() {
			res, done, err := ex.event(ctx, ev.Data)
			if done || err != nil {
				return res, err
			}
		}
		if blank {
			ev.Reset()
		}
		if err != nil {
			return nil, &Error{Name: ex.u.opts.Name, Msg: errStreamEnded.Error(), Err: errors.Join(ErrUnavailable, errStreamEnded)}
		}
	}
}

// event handles one event's message; done when it is the response.
func (ex *rawExchange) event(ctx context.Context, data []byte) (json.RawMessage, bool, error) {
	if res, ok := ex.plain(data); ok {
		return res, true, nil
	}
	if data, _ = mcpclient.EventMessage(data); data == nil {
		return nil, false, nil // dropped, as the go-sdk client's transport drops it
	}
	var m rawMessage
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil { // its first value, as the go-sdk reads it
		return nil, false, &Error{Name: ex.u.opts.Name, Msg: "sent an event that is not JSON-RPC: " + err.Error(), Err: err}
	}
	switch {
	case m.Method == "" && mcpclient.RespondsTo(data, ex.id):
		res, err := ex.response(data)
		return res, true, err
	case m.Method == "notifications/tools/list_changed":
		ex.u.Relist()
	case m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null":
		ex.answer(ctx, m)
	}
	return nil, false, nil
}

// answer answers a request of the server as the gateway's go-sdk client
// does (it declares no capabilities): ping with an empty result,
// roots/list with no roots, anything else with method not found.
func (ex *rawExchange) answer(ctx context.Context, m rawMessage) {
	var body []byte
	switch m.Method {
	case "ping":
		body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	case "roots/list":
		body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"roots":[]}}`, m.ID)
	default:
		body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, m.ID, jsonrpc.CodeMethodNotFound, "method not supported by the mcpctl gateway: "+m.Method)
	}
	if resp, err := ex.post(ctx, body); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
	}
}
