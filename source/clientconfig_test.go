package source_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/source"
	"github.com/mcpctl/mcpctl/toolset"
)

// TestClientConfigSource: client-config:FILE#NAME reads FILE relative to
// Dir and names the server; a missing name or an unknown one is bad input
// listing the servers the file has.
func TestClientConfigSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := `{"mcpServers":{"fs":{"command":"fs-server"},"web":{"url":"http://127.0.0.1:1/mcp"}}}`
	if err := os.WriteFile(filepath.Join(dir, "claude.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		"client-config:claude.json#nope": `no server "nope"; the file has: fs, web`,
		"client-config:claude.json":      "name one server with client-config:FILE#NAME; the file has: fs, web",
		"client-config:#fs":              "want client-config:FILE#NAME, e.g. client-config:claude_desktop_config.json#filesystem",
	} {
		_, err := source.Load(context.Background(), src, source.LoadOptions{Dir: dir})
		var ie *toolset.InputError
		if !errors.As(err, &ie) || ie.Msg != want {
			t.Errorf("%s: %v, want an input error %q", src, err, want)
		}
	}
	servers, err := source.ReadClientConfig("claude.json", dir)
	if err != nil || len(servers) != 2 || servers[0].Name != "fs" {
		t.Fatalf("ReadClientConfig = %+v, %v", servers, err)
	}
}
