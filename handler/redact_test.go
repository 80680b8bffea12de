package handler

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
)

// TestRedactURL: an http handler's transport error is shown to the client,
// and a *url.Error prints its URL, which may carry credentials (userinfo, a
// token in the query, a secret path). redactURL must drop every such URL and
// keep what the error says otherwise; an error with no URL in its chain is
// returned as it is (issue 11, item 6: redactURL had no test).
func TestRedactURL(t *testing.T) {
	t.Parallel()
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	urlErr := func(u string, err error) error { return &url.Error{Op: "Post", URL: u, Err: err} }
	tests := []struct {
		name   string
		err    error
		secret string // must not appear in the redacted message
		want   string // the redacted message
		is     error  // the redacted error still wraps it
	}{
		{"userinfo", urlErr("https://alice:hunter2@api.example.com/v1", refused), "hunter2", refused.Error(), refused},
		{"user only", urlErr("https://ghp_abc123@api.example.com/v1", refused), "ghp_abc123", refused.Error(), refused},
		{"token in query", urlErr("https://api.example.com/v1?access_token=s3cr3t&x=1", refused), "s3cr3t", refused.Error(), refused},
		{"key in path", urlErr("https://hooks.example.com/services/T000/B000/XXXXsecret", io.ErrUnexpectedEOF), "XXXXsecret", io.ErrUnexpectedEOF.Error(), io.ErrUnexpectedEOF},
		{"fragment", urlErr("http://127.0.0.1:8080/cb#id_token=abc.def", refused), "abc.def", refused.Error(), refused},
		{"cross-origin redirect keeps the origin", urlErr("https://u:p@a.example/x?k=v", fmt.Errorf("%w (to https://b.example:443)", errCrossOriginRedirect)), "u:p@", errCrossOriginRedirect.Error() + " (to https://b.example:443)", errCrossOriginRedirect},
		{"wrapped url.Error", fmt.Errorf("calling the endpoint: %w", urlErr("https://alice:hunter2@api.example.com/?token=s3cr3t", refused)), "hunter2", refused.Error(), refused},
		{"no URL: unchanged", errors.New("boom"), "", "boom", nil},
		{"wrapped non-URL error: unchanged", fmt.Errorf("reading the body: %w", io.ErrUnexpectedEOF), "", "reading the body: unexpected EOF", io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := redactURL(tt.err)
			if got == nil {
				t.Fatal("redactURL returned nil")
			}
			if tt.secret != "" && strings.Contains(got.Error(), tt.secret) {
				t.Errorf("redactURL(%q) = %q, still shows %q", tt.err, got, tt.secret)
			}
			if got.Error() != tt.want {
				t.Errorf("redactURL(%q) = %q, want %q", tt.err, got, tt.want)
			}
			if tt.is != nil && !errors.Is(got, tt.is) {
				t.Errorf("redactURL(%q) does not wrap %v", tt.err, tt.is)
			}
			var ue *url.Error
			if errors.As(got, &ue) {
				t.Errorf("redactURL(%q) still holds a *url.Error (%s)", tt.err, ue.URL)
			}
		})
	}
}
