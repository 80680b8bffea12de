package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/mcpclient"
)

// FastCall answers one tools/call of the HTTP fast path (see fastHTTP):
// sessionID is the request's Mcp-Session-Id ("" on a stateless server),
// id the request's JSON-RPC id and params its params object, both as
// sent. It returns a whole JSON-RPC response message (id included), or
// ok false when it did not take the call: then nothing of the call may
// have happened yet, as go-sdk serves the request next.
type FastCall func(ctx context.Context, sessionID string, id json.RawMessage, params json.RawMessage) (response []byte, ok bool)

// fastHTTP is the streamable HTTP fast path for tools/call: placed in
// front of go-sdk's StreamableHTTPHandler (after every protection of
// HTTPHandler), it hands a plain tools/call POST to fast and answers it
// with a JSON body (MCP 2025-06-18 and 2025-11-25, Transports › Streamable
// HTTP › Sending Messages to the Server: the server may answer a POST with
// one application/json response), so go-sdk never decodes it. Everything
// else, and every call fast declines, reaches go-sdk with its body as
// read. See docs/gateway.md, "The HTTP fast path".
type fastHTTP struct {
	s         *Server
	sdk       http.Handler
	fast      parsedCall
	stateless bool
	// keepAlive is half the session idle timeout (0: none): go-sdk
	// restarts a session's idle timer only for requests it serves, so a
	// call on a session go-sdk has not served for that long goes to
	// go-sdk.
	keepAlive time.Duration
	now       func() time.Time

	mu sync.Mutex
	// flight holds the requests in flight per session and id, with the
	// cancel of the calls fast serves (nil for those go-sdk serves).
	flight map[flightKey]context.CancelFunc
	// served is when go-sdk last served a request of each session.
	served map[*mcp.ServerSession]time.Time
}

// flightKey is one request id of one session; id is "s" + a string id
// or "n" + an integer id, as decoded.
type flightKey struct{ session, id string }

// parsedCall is a FastCall handed the tools/call as parseFastMessage read
// it (msg.id, msg.params and msg.call), so that nothing is read twice.
type parsedCall func(ctx context.Context, sessionID string, msg *fastMessage) (response []byte, ok bool)

// httpFast is the fast path of HTTPHandler: o's FastCall (tests), else
// the server's (fastParsed) for the session with the given id; none when
// tests turned the fast path off. A stateless server has no session to
// check the call's revision against, so its calls take go-sdk.
func (s *Server) httpFast(o HTTPOptions) parsedCall {
	switch {
	case o.fastCall != nil:
		return func(ctx context.Context, sessionID string, msg *fastMessage) ([]byte, bool) {
			return o.fastCall(ctx, sessionID, msg.id, msg.params)
		}
	case s.hooks.noFastCalls || o.Stateless:
		return nil
	}
	return s.fastSessionCall
}

// fastSessionCall is fastParsed for the session with the given id.
func (s *Server) fastSessionCall(ctx context.Context, sessionID string, msg *fastMessage) ([]byte, bool) {
	v, ok := s.notifier.byID.Load(sessionID)
	if !ok {
		return nil, false
	}
	return s.fastParsed(ctx, v.(*mcp.ServerSession), msg.id, &msg.call)
}

// newFastHTTP wraps sdk with the fast path; a nil fast returns sdk.
func (s *Server) newFastHTTP(sdk http.Handler, o HTTPOptions, fast parsedCall) http.Handler {
	if fast == nil {
		return sdk
	}
	f := &fastHTTP{s: s, sdk: sdk, fast: fast, stateless: o.Stateless, now: time.Now,
		flight: map[flightKey]context.CancelFunc{}, served: map[*mcp.ServerSession]time.Time{}}
	if o.SessionTimeout > 0 && !o.Stateless {
		f.keepAlive = o.SessionTimeout / 2
	}
	return f
}

func (f *fastHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method == http.MethodDelete && sid != "" {
		dw := &deleteWriter{ResponseWriter: w}
		f.sdk.ServeHTTP(dw, r)
		if dw.code == http.StatusNoContent {
			// go-sdk closed the session: forgotten now, not once its end
			// is noticed (notifier.begin), so that no request after the
			// 204 takes the fast path on it (go-sdk answers 404).
			f.s.notifier.forgetID(sid)
		}
		f.cancelSession(sid)
		return
	}
	ss, ok := f.admits(r)
	if !ok {
		f.toSDK(w, r, ss, nil)
		return
	}
	body, err := readBody(r)
	if err != nil {
		f.toSDK(w, r, ss, nil)
		return
	}
	msg, ok := parseFastMessage(body)
	switch {
	case !ok:
		f.toSDK(w, r, ss, nil)
	case f.stateless:
		f.serveStateless(w, r, msg)
	case msg.method == methodCancelled:
		f.serveCancel(w, r, ss, sid, msg)
	case msg.sdkOnly:
		f.serveHeld(w, r, ss, sid, msg)
	default:
		f.serveCall(w, r, ss, sid, msg)
	}
}

const methodCancelled = "notifications/cancelled"

// methodSubscriptionsListen is a 2026-07-28 client's request for the
// stream its server notifications come on (MCP 2026-07-28, SEP-2575),
// answered only when the session ends.
const methodSubscriptionsListen = "subscriptions/listen"

// admits reports whether r's headers allow the fast path, and returns
// its session (nil on a stateless server).
func (f *fastHTTP) admits(r *http.Request) (*mcp.ServerSession, bool) {
	if r.Method != http.MethodPost || r.Body == nil || len(r.Header.Values("Last-Event-ID")) > 0 || sdkRefusesHost(r) ||
		!jsonContent(r.Header.Get("Content-Type")) || !acceptsBoth(r.Header.Values("Accept")) {
		return nil, false
	}
	rev := r.Header.Get("MCP-Protocol-Version")
	if !fastRevision(rev) {
		return nil, false
	}
	if f.stateless {
		return nil, true
	}
	ss, negotiated, ok := f.s.initializedSession(r.Header.Get("Mcp-Session-Id"))
	return ss, ok && negotiated == rev
}

// fastRevision reports whether a request of revision rev (its
// MCP-Protocol-Version header) may take the fast path: one go-sdk
// supports, without batches (2025-06-18 on, Transports › Streamable HTTP)
// and before 2026-07-28, whose requests carry headers and _meta go-sdk
// checks itself. A missing header means 2025-03-26, so it goes to go-sdk.
func fastRevision(rev string) bool {
	return rev >= firstBatchlessRevision && rev < protocolSessionless && slices.Contains(mcp.SupportedProtocolVersions(), rev)
}

// initializedSession returns the initialized session with the given id
// and its negotiated revision.
func (s *Server) initializedSession(id string) (*mcp.ServerSession, string, bool) {
	if id == "" {
		return nil, "", false
	}
	v, ok := s.notifier.byID.Load(id)
	if !ok {
		return nil, "", false
	}
	ss := v.(*mcp.ServerSession)
	st := s.notifier.state(ss)
	if st == nil {
		return ss, "", false
	}
	rev := st.revision.Load()
	s.notifier.mu.Lock()
	initialized := st.initialized
	s.notifier.mu.Unlock()
	if rev == nil || !initialized {
		return ss, "", false
	}
	return ss, *rev, true
}

// readBody reads r's body (bounded by HTTPHandler's MaxBytesReader) and
// puts it back for go-sdk: on a read error, what was read followed by the
// same error, so go-sdk answers it as it would have.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	rest := io.Reader(bytes.NewReader(b))
	if err != nil {
		rest = io.MultiReader(rest, errReader{err})
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{rest, r.Body}
	return b, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// toSDK hands r to go-sdk, with its id (when parsed) held in flight, and
// notes that go-sdk served a request of ss.
func (f *fastHTTP) toSDK(w http.ResponseWriter, r *http.Request, ss *mcp.ServerSession, key *flightKey) {
	if key != nil {
		defer f.land(*key)
	}
	if ss != nil {
		f.noteServed(ss)
	}
	f.sdk.ServeHTTP(w, r)
}

// serveCall serves a tools/call: a duplicate of an id in flight is
// refused as go-sdk refuses it; otherwise fast answers it, or go-sdk does.
func (f *fastHTTP) serveCall(w http.ResponseWriter, r *http.Request, ss *mcp.ServerSession, sid string, msg fastMessage) {
	key := flightKey{session: sid, id: msg.idKey}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if !f.takeOff(key, cancel) {
		duplicateID(w, msg.idKey)
		return
	}
	if !f.fresh(ss) {
		f.toSDK(w, r, ss, &key)
		return
	}
	resp, ok := f.fast(ctx, sid, &msg)
	if !ok {
		f.toSDK(w, r, ss, &key)
		return
	}
	f.land(key)
	writeFast(w, resp)
}

// serveStateless serves a request on a stateless server, where every
// request stands alone (go-sdk makes a session for each): nothing is held
// in flight, and a cancellation is go-sdk's.
func (f *fastHTTP) serveStateless(w http.ResponseWriter, r *http.Request, msg fastMessage) {
	if msg.sdkOnly || msg.method == methodCancelled {
		f.toSDK(w, r, nil, nil)
		return
	}
	resp, ok := f.fast(r.Context(), "", &msg)
	if !ok {
		f.toSDK(w, r, nil, nil)
		return
	}
	writeFast(w, resp)
}

// writeFast answers a POST with one JSON-RPC response.
func writeFast(w http.ResponseWriter, resp []byte) {
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(resp)
}

// serveHeld hands go-sdk a request whose id is held in flight meanwhile,
// so that no fast call takes it; one whose id a fast call holds is
// refused as go-sdk refuses a duplicate (go-sdk refuses one it holds).
func (f *fastHTTP) serveHeld(w http.ResponseWriter, r *http.Request, ss *mcp.ServerSession, sid string, msg fastMessage) {
	key := flightKey{session: sid, id: msg.idKey}
	f.mu.Lock()
	cancel, held := f.flight[key]
	if !held {
		f.flight[key] = nil
	}
	f.mu.Unlock()
	switch {
	case cancel != nil:
		duplicateID(w, msg.idKey)
	case held:
		f.toSDK(w, r, ss, nil)
	default:
		f.toSDK(w, r, ss, &key)
	}
}

// serveCancel cancels a fast call in flight (202, as go-sdk answers a
// notification); a cancellation of anything else goes to go-sdk.
func (f *fastHTTP) serveCancel(w http.ResponseWriter, r *http.Request, ss *mcp.ServerSession, sid string, msg fastMessage) {
	f.mu.Lock()
	cancel := f.flight[flightKey{session: sid, id: msg.idKey}]
	f.mu.Unlock()
	if cancel == nil {
		f.toSDK(w, r, ss, nil)
		return
	}
	cancel()
	w.WriteHeader(http.StatusAccepted)
}

// takeOff holds key in flight; false when it already is.
func (f *fastHTTP) takeOff(key flightKey, cancel context.CancelFunc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.flight[key]; dup {
		return false
	}
	f.flight[key] = cancel
	return true
}

func (f *fastHTTP) land(key flightKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.flight, key)
}

// deleteWriter is the ResponseWriter a DELETE is answered through: it
// keeps the status go-sdk answered.
type deleteWriter struct {
	http.ResponseWriter
	code int
}

func (w *deleteWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// cancelSession cancels the fast calls of a session just deleted.
func (f *fastHTTP) cancelSession(sid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, cancel := range f.flight {
		if k.session == sid && cancel != nil {
			cancel()
		}
	}
}

// fresh reports whether go-sdk served a request of ss within keepAlive
// (always on a stateless server or without an idle timeout).
func (f *fastHTTP) fresh(ss *mcp.ServerSession) bool {
	if ss == nil || f.keepAlive <= 0 {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.served[ss]
	return ok && f.now().Sub(at) < f.keepAlive
}

// noteServed records that go-sdk serves a request of ss now; the record
// goes with the session.
func (f *fastHTTP) noteServed(ss *mcp.ServerSession) {
	if f.keepAlive <= 0 {
		return
	}
	f.mu.Lock()
	_, known := f.served[ss]
	f.served[ss] = f.now()
	f.mu.Unlock()
	if !known {
		go func() {
			_ = ss.Wait()
			if h := f.s.hooks.sessionEnded; h != nil {
				h()
			}
			f.mu.Lock()
			delete(f.served, ss)
			f.mu.Unlock()
		}()
	}
}

// jsonContent reports whether a Content-Type is application/json, as
// go-sdk judges it (its media type, parameters ignored).
func jsonContent(ct string) bool {
	return mcpclient.MediaType(ct) == "application/json"
}

// acceptsBoth reports whether Accept values allow both application/json
// and text/event-stream, as go-sdk requires of a POST.
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for _, raw := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(raw, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}
