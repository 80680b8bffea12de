package serve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestIssue12AdminProbesAnyHost (reproduction: the kubelet probes a pod's
// admin port with Host set to the pod's IP, and every replica of
// deploy/kubernetes answered 403 to /readyz and /healthz, so none became
// ready). The probes answer any Host and origin: they tell nothing. The
// endpoints that tell or change something keep the DNS-rebinding check: a
// Host that is a name must be localhost (a rebinding page's Host is its
// own name), while an IP literal, which no DNS answer stands behind, is
// accepted, so `mcpctl status --admin POD_IP:PORT` works beyond loopback.
func TestIssue12AdminProbesAnyHost(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	s.SetReady(true)
	h := s.AdminHandler(AdminOptions{Token: "adm"})
	for _, tc := range []struct {
		name, method, path, host, auth, origin string
		want                                   int
	}{
		{"kubelet readiness", "GET", "/readyz", "10.1.2.3:8932", "", "", http.StatusOK},
		{"kubelet liveness", "GET", "/healthz", "10.1.2.3:8932", "", "", http.StatusOK},
		{"probe, IPv6 pod", "GET", "/readyz", "[fd00::5]:8932", "", "", http.StatusOK},
		{"status by pod IP", "GET", "/status", "10.1.2.3:8932", "Bearer adm", "", http.StatusOK},
		{"status by pod IP, no token", "GET", "/status", "10.1.2.3:8932", "", "", http.StatusUnauthorized},
		{"status, rebinding name", "GET", "/status", "evil.example.com:8932", "Bearer adm", "", http.StatusForbidden},
		{"metrics, rebinding name", "GET", "/metrics", "evil.example.com:8932", "Bearer adm", "", http.StatusForbidden},
		{"reload, rebinding name", "POST", "/reload", "evil.example.com:8932", "Bearer adm", "", http.StatusForbidden},
		{"approve, rebinding name", "POST", "/approve", "mcpctl.internal:8932", "Bearer adm", "", http.StatusForbidden},
		{"status by pod IP, other origin", "GET", "/status", "10.1.2.3:8932", "Bearer adm", "http://evil.example.com", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(""))
			req.Host = tc.host
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("%s %s, Host %s: %d, want %d", tc.method, tc.path, tc.host, rec.Code, tc.want)
			}
		})
	}
}

// TestIssue12AdminBeyondLoopbackNeedsToken: an admin listener beyond
// loopback without a token would hand /status and POST /reload to the
// whole network; Run refuses it (ErrAdminToken) before listening.
func TestIssue12AdminBeyondLoopbackNeedsToken(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	err := s.Run(context.Background(), RunOptions{AdminAddr: "192.0.2.1:8932"})
	if !errors.Is(err, ErrAdminToken) {
		t.Fatalf("Run: %v, want ErrAdminToken", err)
	}
}
