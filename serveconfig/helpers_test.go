package serveconfig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/internal/configtest"
)

// Test helpers; the configs themselves are shared with package serve's
// tests through internal/configtest.

// writeFile writes content to dir/name (creating folders).
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Configs shared with serve's tests.
const baseConfig = configtest.Base

var (
	aliasBomb       = configtest.AliasBomb
	manyToolsConfig = configtest.ManyTools
)
