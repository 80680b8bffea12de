package serve

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// The protections of both HTTP listeners (MCP and admin), each written
// once. go-sdk v1.8.0 supplies what it can: the localhost Host check and
// the body limit (mcp.StreamableHTTPHandler, MCP listener), the bearer
// token (auth.RequireBearerToken) and, through net/http, the
// Sec-Fetch-Site check (http.CrossOriginProtection). What they lack is
// added here and said where.

// originGuard answers 403 to a request whose Origin is present and not
// allowed, and to one net/http's CrossOriginProtection refuses (an unsafe
// method that Sec-Fetch-Site says another site sent, unless its Origin is
// one of trusted).
//
// The Origin check is ours because CrossOriginProtection is a CSRF
// check, not the DNS-rebinding check MCP 2025-11-25 basic/transports
// ("Security Warning") asks for, "validate the Origin header on all
// incoming connections": its Check (go1.26 net/http/csrf.go:136, 161)
// returns nil for GET, HEAD and OPTIONS, for Sec-Fetch-Site same-origin,
// and for an Origin whose host equals Host — exactly what a page whose
// name rebinds to the listener sends. go-sdk's StreamableHTTPOptions.CrossOriginProtection
// (mcp/streamable.go:195, deprecated) is that same Check.
func (s *Server) originGuard(allowed func(r *http.Request, origin string) bool, trusted []string, next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	for _, o := range trusted {
		if err := cop.AddTrustedOrigin(o); err != nil {
			s.log.Warn("allowed origin not trusted for cross-site requests", "origin", sanitizeOrigin(o), "err", err)
		}
	}
	deny := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.log.Warn("HTTP request from another origin refused", "origin", sanitizeOrigin(r.Header.Get("Origin")),
			"secFetchSite", r.Header.Get("Sec-Fetch-Site"), "remote", r.RemoteAddr)
		refuse(w, "Forbidden: cross-origin request", http.StatusForbidden)
	})
	cop.SetDenyHandler(deny)
	checked := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !allowed(r, origin) {
			deny.ServeHTTP(w, r)
			return
		}
		checked.ServeHTTP(w, r)
	})
}

// originIn returns the allowed function of originGuard for a list of
// origins (scheme://host[:port], compared without case and a trailing
// slash), and the list so normalized for its trusted.
func originIn(list []string) (func(*http.Request, string) bool, []string) {
	origins := make([]string, 0, len(list))
	for _, a := range list {
		origins = append(origins, strings.ToLower(strings.TrimSuffix(a, "/")))
	}
	return func(_ *http.Request, origin string) bool {
		return slices.Contains(origins, strings.ToLower(origin))
	}, origins
}

// sameOrigin is the allowed function of originGuard for the admin
// listener: the Origin of a page the listener itself served.
func sameOrigin(r *http.Request, origin string) bool {
	return strings.EqualFold(origin, "http://"+r.Host)
}

// requireToken lets a request through to next only with the bearer token
// (RFC 6750 §2.1), checked by go-sdk's auth.RequireBearerToken, which
// takes the scheme without case (RFC 7235 §2.1), with tokenVerifier; an
// empty token lets every request through.
//
// auth.RequireBearerToken answers a refusal with http.Error alone
// (go-sdk v1.8.0 auth/auth.go:118): no WWW-Authenticate challenge without
// ResourceMetadataURL or Scopes, and net/http then waits for the unread
// body before the next request. challengeWriter adds the RFC 6750 §3
// challenge and closes the connection at once (refuse).
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	check := auth.RequireBearerToken(tokenVerifier([]byte(token)), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var admitted *http.Request
		check(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { admitted = r })).ServeHTTP(challengeWriter{w}, r)
		if admitted != nil {
			next.ServeHTTP(w, admitted)
		}
	})
}

// tokenVerifier accepts exactly token, compared in constant time.
func tokenVerifier(token []byte) auth.TokenVerifier {
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), token) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{}, nil
	}
}

// challengeWriter is the ResponseWriter auth.RequireBearerToken answers
// its refusals to (it writes nothing when it admits a request).
type challengeWriter struct{ http.ResponseWriter }

func (c challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		c.Header().Set("WWW-Authenticate", `Bearer realm="mcpctl"`)
	}
	closeAfterAnswer(c.ResponseWriter)
	c.ResponseWriter.WriteHeader(code)
}

// refuse answers a request refused before its body was read, and closes
// the connection after the answer (closeAfterAnswer).
func refuse(w http.ResponseWriter, msg string, code int) {
	closeAfterAnswer(w)
	http.Error(w, msg, code)
}

// closeAfterAnswer closes the connection after the answer: net/http would
// otherwise read (up to 256 KiB of) the unread body, so a client that
// never sends it would hold the connection open.
func closeAfterAnswer(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	// net/http drains up to 256 KiB of an unread body after the handler,
	// even when closing: a read deadline already past ends that at once.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// sdkRefusesHost reports whether go-sdk's DNS rebinding protection refuses
// r (403): a loopback listener asked for a Host that is not a loopback
// name (go-sdk v1.8.0 mcp/streamable.go:318, with its util.IsLoopback's
// reading of both). A handler in front of go-sdk (fastHTTP) leaves such a
// request to it.
func sdkRefusesHost(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && sdkLoopback(local.String()) && !sdkLoopback(r.Host)
}

// sdkLoopback is go-sdk's util.IsLoopback: host[:port], "localhost" or a
// loopback IP literal.
func sdkLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
