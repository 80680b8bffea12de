package httptransport

import (
	"net/http"
	"testing"
)

type wrapped struct{ http.RoundTripper }

// TestNewWithDefaultTransportWrapped: a program (or a test) that set
// http.DefaultTransport to a wrapper still gets a transport. Reproduction:
// the gateway cloned http.DefaultTransport.(*http.Transport), and with the
// serve tests' wrapper in place every reload that started an HTTP upstream
// failed with "internal error … interface conversion: http.RoundTripper is
// serve.keepIdle, not *http.Transport".
func TestNewWithDefaultTransportWrapped(t *testing.T) {
	// not parallel: sets http.DefaultTransport
	want := New()
	old := http.DefaultTransport
	http.DefaultTransport = wrapped{old}
	defer func() { http.DefaultTransport = old }()
	got := New()
	if got == nil || got.Proxy == nil || got.DialContext == nil {
		t.Fatalf("New = %+v, want a transport with proxy and dialer", got)
	}
	if got.MaxIdleConns != want.MaxIdleConns || got.IdleConnTimeout != want.IdleConnTimeout ||
		got.TLSHandshakeTimeout != want.TLSHandshakeTimeout || got.ExpectContinueTimeout != want.ExpectContinueTimeout ||
		got.ForceAttemptHTTP2 != want.ForceAttemptHTTP2 {
		t.Errorf("New with a wrapped default = %+v, want net/http's default settings %+v", got, want)
	}
}

// TestNewIsItsOwn: each call returns a transport of its own.
func TestNewIsItsOwn(t *testing.T) {
	t.Parallel()
	a, b := New(), New()
	if a == b || a == http.DefaultTransport {
		t.Fatal("New returned a shared transport")
	}
}
