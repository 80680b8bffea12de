package serve

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures the streamable HTTP transport (docs/serve.md#transports-admin-security).
type HTTPOptions struct {
	// Stateless serves without sessions (each request stands alone), as
	// the 2026-07-28 revision requires; otherwise sessions are stateful.
	Stateless bool
	// AllowedOrigins lists the Origin values accepted (scheme://host[:port]);
	// a request carrying any other Origin gets 403. Requests without an
	// Origin (non-browser clients) are accepted.
	AllowedOrigins []string
	// Token, when set, is the bearer token every request must carry
	// (compared in constant time).
	Token string
	// MaxBodyBytes limits request bodies; 0 means 4 MiB.
	MaxBodyBytes int64
	// SessionTimeout closes idle stateful sessions; 0 never does.
	SessionTimeout time.Duration
}

// DefaultMaxBodyBytes is the default request body limit.
const DefaultMaxBodyBytes = 4 << 20

// HTTPHandler returns the streamable HTTP handler (go-sdk), wrapped with the
// Origin check, the bearer token and the body limit.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:           o.Stateless,
		Logger:              sdkLogger(s.log, "mcp-http"),
		MaxRequestBodyBytes: o.MaxBodyBytes,
		SessionTimeout:      o.SessionTimeout,
	})
	origins := make([]string, 0, len(o.AllowedOrigins))
	for _, a := range o.AllowedOrigins {
		origins = append(origins, strings.ToLower(strings.TrimSuffix(a, "/")))
	}
	token := []byte(o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(origins, strings.ToLower(origin)) {
			s.log.Warn("HTTP request from a disallowed origin refused", "origin", sanitizeOrigin(origin), "remote", r.RemoteAddr)
			http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
			return
		}
		if len(token) > 0 {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), token) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcpctl"`)
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, o.MaxBodyBytes)
		}
		if r.Method == http.MethodPost {
			// Counted until the response is written, so a shutdown
			// lets the answers to calls it waited for go out.
			s.posts.add()
			defer s.posts.done()
		}
		h.ServeHTTP(w, r)
	})
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
		http.Error(w, "Not Found: the MCP endpoint is "+MCPPath, http.StatusNotFound)
	})
	return mux
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
