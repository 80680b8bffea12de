package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures the streamable HTTP transport (MCP 2025-11-25,
// Transports › Streamable HTTP).
type HTTPOptions struct {
	// Stateless serves without sessions (each request stands alone), as
	// the 2026-07-28 revision requires; otherwise sessions are stateful.
	Stateless bool
	// AllowedOrigins lists the Origin values accepted (scheme://host[:port]);
	// a request carrying any other Origin gets 403, whatever its method.
	// Requests without an Origin (non-browser clients) are accepted,
	// unless their Sec-Fetch-Site says another site sent a POST or DELETE
	// (originGuard).
	AllowedOrigins []string
	// Token, when set, is the bearer token every request must carry
	// (compared in constant time).
	Token string
	// MaxBodyBytes limits request bodies; 0 means 4 MiB.
	MaxBodyBytes int64
	// SessionTimeout closes stateful sessions idle that long; 0 means
	// DefaultSessionTimeout, a negative value never closes them.
	SessionTimeout time.Duration
	// MaxSessions bounds the stateful sessions open at once; a request that
	// would open one more gets 503 with a JSON-RPC error
	// (CodeTooManySessions). 0 means DefaultMaxSessions, a negative value
	// sets no bound.
	MaxSessions int
	// ReadHeaderTimeout bounds reading a request's headers, ReadTimeout
	// reading a request body, IdleTimeout how long a keep-alive connection
	// waits for its next request; 0 means the Default… value. They apply
	// to the admin listener too.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration

	// fastCall (tests), when set, answers plain tools/call POSTs before
	// go-sdk instead of the server's own fast path (fasthttp.go).
	fastCall FastCall
}

// Listener timeouts (see HTTPOptions).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

// withDefaults fills the zero fields.
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	return o
}

// DefaultMaxBodyBytes is the default request body limit.
const DefaultMaxBodyBytes = 4 << 20

// HTTPHandler returns the streamable HTTP handler (go-sdk, with its
// localhost Host check and body limit), wrapped with the Origin check
// (originGuard) and the bearer token (requireToken).
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	o = o.withDefaults()
	if !o.Stateless {
		s.slots.configure(max(o.MaxSessions, 0), max(o.SessionTimeout, 0))
	}
	h := s.newFastHTTP(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:           o.Stateless,
		Logger:              sdkLogger(s.log, "mcp-http"),
		MaxRequestBodyBytes: o.MaxBodyBytes,
		SessionTimeout:      max(o.SessionTimeout, 0),
		// A 2026-07-28 request's POST is its whole life: a client that
		// cancels a call ends its POST (the go-sdk client sends no
		// notifications/cancelled a stateless server could match), so the
		// end of the POST cancels the call and frees its --max-calls slot
		// (docs/serve.md#gateway, pass-through).
		PropagateRequestCancellation: true,
	}), o, s.httpFast(o))
	mcpOnly := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.admitHTTP(w, r) {
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = deadlineBody(w, http.MaxBytesReader(w, r.Body, o.MaxBodyBytes), o.ReadTimeout)
		}
		if r.Method == http.MethodPost {
			if !s.admitBatch(w, r) {
				return
			}
			// Counted until the response is written, so a shutdown
			// lets the answers to calls it waited for go out.
			s.posts.add()
			defer s.posts.done()
			if !o.Stateless && r.Header.Get("Mcp-Session-Id") == "" {
				s.serveNewSession(w, r, h)
				return
			}
			if o.Stateless {
				r = r.WithContext(context.WithValue(r.Context(), statelessPostKey{}, r.Context()))
			}
		}
		h.ServeHTTP(w, r)
	})
	allowed, trusted := originIn(o.AllowedOrigins)
	return s.originGuard(allowed, trusted, requireToken(o.Token, mcpOnly))
}

// MCPPath is the one path the streamable HTTP listener serves MCP on (MCP
// 2025-11-25 basic/transports, "Streamable HTTP": the server provides a
// single HTTP endpoint path); every other path answers 404.
const MCPPath = "/mcp"

// ListenerHeader marks the 404 answers of the MCP listener with the value
// "mcp", so a client that meant the admin listener (mcpctl status) can say
// which address it was given.
const ListenerHeader = "Mcpctl-Listener"

// HTTPMux is what the --http listener serves: HTTPHandler on MCPPath only,
// 404 (with ListenerHeader) on every other path.
func (s *Server) HTTPMux(o HTTPOptions) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(MCPPath, s.HTTPHandler(o))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(ListenerHeader, "mcp")
		refuse(w, "Not Found: the MCP endpoint is "+MCPPath, http.StatusNotFound)
	})
	return mux
}

// admitHTTP refuses (503), before the body is read, a request that
// would start a session while the server shuts down; the Origin and the
// token were checked before (originGuard, requireToken). It reports
// whether r goes on.
func (s *Server) admitHTTP(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Mcp-Session-Id") == "" && s.draining.Load() {
		w.Header().Set("Retry-After", "1")
		refuse(w, "Service Unavailable: the server is shutting down", http.StatusServiceUnavailable)
		return false
	}
	return true
}

// admitBatch refuses (400, a JSON-RPC error) a POST whose body is a
// JSON-RPC batch where the session's negotiated revision removed batching
// (2025-06-18 on), or one of more than MaxBatch messages. The SDK judges by
// the MCP-Protocol-Version header alone, which the client may set to an
// older revision than its session's. It reports whether the request goes
// on; r.Body is then as it was.
func (s *Server) admitBatch(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil {
		return true
	}
	br := bufio.NewReaderSize(r.Body, 512)
	body := struct {
		io.Reader
		io.Closer
	}{br, r.Body}
	r.Body = body
	if !startsArray(br) {
		return true
	}
	b, err := io.ReadAll(br)
	if err != nil {
		return true // the SDK reads the same error and answers it
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{bytes.NewReader(b), body.Closer}
	rev := r.Header.Get("MCP-Protocol-Version")
	if rev == "" {
		rev = "2025-03-26" // the header's absence means that revision (2025-06-18 Transports)
	}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		if got, ok := s.sessionRevision(sid); ok {
			rev = got
		}
	}
	n := -1
	if batchAllowed(rev) {
		var raws []json.RawMessage
		if json.Unmarshal(b, &raws) != nil {
			return true // the SDK answers a malformed payload
		}
		n = len(raws)
	}
	if msg := batchRefusal(rev, n); msg != "" {
		batchRefused(w, msg)
		return false
	}
	return true
}

// startsArray reports whether the first byte after white space is '['.
func startsArray(br *bufio.Reader) bool {
	for {
		c, err := br.Peek(1)
		if err != nil {
			return false
		}
		switch c[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
		default:
			return c[0] == '['
		}
	}
}

func batchRefused(w http.ResponseWriter, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// deadlineBody bounds reading body to timeout from now (the request's
// connection read deadline), and lifts the deadline once the body is read:
// a server-wide ReadTimeout would also cut the long-lived streams of
// streamable HTTP (GET, and POST answered with an event stream).
func deadlineBody(w http.ResponseWriter, body io.ReadCloser, timeout time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return body // not supported by this ResponseWriter (HTTP/2 sets none)
	}
	return &readDeadline{ReadCloser: body, rc: rc}
}

type readDeadline struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *readDeadline) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		if errors.Is(err, io.EOF) {
			_ = b.rc.SetReadDeadline(time.Time{})
		} else {
			// Timed out or too large: the rest is never read, and
			// net/http must not wait for it either (closeAfterAnswer).
			_ = b.rc.SetReadDeadline(time.Now())
		}
	}
	return n, err
}

// newListenerServer is the http.Server of one listener, with o's
// timeouts.
func newListenerServer(h http.Handler, o HTTPOptions) *http.Server {
	o = o.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: o.ReadHeaderTimeout, IdleTimeout: o.IdleTimeout}
}

// sanitizeOrigin keeps scheme and host of an Origin for logs.
func sanitizeOrigin(o string) string {
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return "(malformed)"
	}
	return u.Scheme + "://" + u.Host
}

// ListenAddr makes an --http or --admin value a listen address: a missing
// host binds loopback (127.0.0.1), so nothing is exposed unless the
// address names another host.
func ListenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// A bare port.
		if _, perr := net.LookupPort("tcp", addr); perr == nil {
			return net.JoinHostPort("127.0.0.1", addr), nil
		}
		return "", fmt.Errorf("want HOST:PORT or PORT, got %q", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// IsLoopback reports whether a listen address is on the loopback interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// statelessPostKey is the context key of a stateless POST's own context,
// which the go-sdk's handler context keeps the values of but not the
// cancellation (for requests before 2026-07-28).
type statelessPostKey struct{}

// withPost is ctx, ended also when the stateless POST carrying the
// request ends: over stateless HTTP no notifications/cancelled can reach a
// call (each POST is a session of its own), so a client cancels a call by
// ending its POST (docs/serve.md#gateway, pass-through), which frees its
// --max-calls slot. stop releases it.
func withPost(ctx context.Context) (_ context.Context, stop func()) {
	post, ok := ctx.Value(statelessPostKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(post, cancel)
	return ctx, func() {
		unhook()
		cancel()
	}
}
