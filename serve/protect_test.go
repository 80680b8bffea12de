package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The MCP listener's Origin check goes beyond net/http's
// CrossOriginProtection, which go-sdk v1.8.0 offers
// (StreamableHTTPOptions.CrossOriginProtection): MCP 2025-11-25
// basic/transports ("Security Warning": servers MUST validate the Origin
// header on all incoming connections) asks for a 403 to any Origin not
// allowed, also on GET and when the Origin names the request's own Host
// (a DNS-rebinding page); CrossOriginProtection accepts both. The
// Sec-Fetch-Site check comes from CrossOriginProtection (reproduction: a
// POST with Sec-Fetch-Site: cross-site and no Origin was served).
func TestHTTPOriginBeyondCrossOriginProtection(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	hs := httpServer(t, s, HTTPOptions{AllowedOrigins: []string{"https://App.example.com/"}})
	host := strings.TrimPrefix(hs.URL, "http://")
	for _, tc := range []struct {
		name, method string
		header       map[string]string
		want         int
	}{
		{"GET from another origin", "GET", map[string]string{"Origin": "https://evil.example.com"}, http.StatusForbidden},
		{"rebinding origin equal to Host", "POST", map[string]string{"Origin": "http://" + host}, http.StatusForbidden},
		{"rebinding page, same-origin fetch", "POST", map[string]string{"Origin": "http://" + host, "Sec-Fetch-Site": "same-origin"}, http.StatusForbidden},
		{"cross-site fetch without Origin", "POST", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"allowed origin, cross-site fetch", "POST", map[string]string{"Origin": "https://app.example.com", "Sec-Fetch-Site": "cross-site"}, http.StatusOK},
		{"allowed origin", "POST", map[string]string{"Origin": "https://app.example.com"}, http.StatusOK},
		{"no Origin", "POST", nil, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, hs.URL, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// go-sdk's auth.RequireBearerToken answers 401 without a challenge and
// leaves the connection open; both listeners add the RFC 6750 §3
// challenge and close the connection (the unread body is never waited
// for: TestHardening5UnauthenticatedBodyNotAwaited).
func TestHTTPUnauthorizedChallenge(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	mcpURL := httpServer(t, s, HTTPOptions{Token: "s3cret"}).URL
	admin := httptest.NewServer(s.AdminHandler(AdminOptions{Token: "adm"}))
	t.Cleanup(admin.Close)
	for _, tc := range []struct{ name, method, url, auth string }{
		{"mcp, no token", "POST", mcpURL, ""},
		{"mcp, wrong token", "POST", mcpURL, "Bearer s3cre"},
		{"mcp, token in three fields", "POST", mcpURL, "Bearer s3cret x"},
		{"admin, no token", "GET", admin.URL + "/status", ""},
		{"admin, wrong scheme", "POST", admin.URL + "/reload", "Basic adm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, tc.url, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", resp.StatusCode)
			}
			if got, want := resp.Header.Get("WWW-Authenticate"), `Bearer realm="mcpctl"`; got != want {
				t.Errorf("WWW-Authenticate %q, want %q", got, want)
			}
			if !resp.Close {
				t.Error("the connection stays open after the 401")
			}
		})
	}
}
