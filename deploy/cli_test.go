// Package deploy holds no code: its tests check the files under deploy/
// (Kubernetes manifests, the HAProxy configuration) against the mcpctl CLI
// and run a fleet of replicas behind HAProxy (MCPCTL_FLEET=1).
package deploy

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/cmd"
	"github.com/mcpctl/mcpctl/serve"
)

// serveFlags are the long flags `mcpctl serve --help` lists, each with its
// value type ("" for a boolean), and the help text itself.
var serveFlags = sync.OnceValues(func() (map[string]string, string) {
	var out, errOut bytes.Buffer
	if code := cmd.Main([]string{"serve", "--help"}, strings.NewReader(""), &out, &errOut); code != cmd.ExitOK {
		panic("mcpctl serve --help: exit " + errOut.String())
	}
	flags := map[string]string{}
	re := regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z0-9-]+)( [A-Za-z]+)?\s\s`)
	for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
		flags[m[1]] = strings.TrimSpace(m[2])
	}
	return flags, out.String()
})

// requireServeFlag fails the test when `mcpctl serve --help` lacks flag.
func requireServeFlag(t *testing.T, flag string) {
	t.Helper()
	flags, _ := serveFlags()
	if _, ok := flags[flag]; ok {
		return
	}
	t.Errorf("mcpctl serve --help has no flag %s", flag)
}

// adminAnswers reports the status a ready admin listener gives GET path
// with the Host header host: 404 means the path does not exist, 403 that
// the Host is refused (the admin listener's DNS-rebinding check).
func adminAnswers(t *testing.T, path, host string) int {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "mcpctl.serve.yaml")
	if err := os.WriteFile(cfg, []byte("tools: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(context.Background(), serve.Options{ConfigPath: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetReady(true)
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = host
	rec := httptest.NewRecorder()
	srv.AdminHandler(serve.AdminOptions{}).ServeHTTP(rec, req)
	return rec.Code
}
