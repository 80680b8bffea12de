// Package httptransport makes the HTTP transports mcpctl's clients own
// (an upstream's, an http handler's, a live source's), so that settings
// one of them changes reach no other client of the process.
package httptransport

import (
	"net"
	"net/http"
	"time"
)

// New returns a transport of its own with net/http's defaults: a clone of
// http.DefaultTransport when that is an *http.Transport, as net/http sets
// it, and otherwise (a program that wrapped it, to trace requests say, or
// a test) a transport with the settings net/http gives its default.
func New() *http.Transport {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return t.Clone()
	}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
