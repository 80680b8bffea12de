package mcpclient

import "testing"

// TestNewcomerLiveToolsHaveNoFilePosition: tools read from a live server
// have no file a position could point into. Reproduction: `mcpctl lint
// 'client-config:client.json#everything'` (server-everything over stdio)
// printed "client-config:client.json#everything:1:3131: warning: …" and
// "echo (1:116)": line and column in the server's tools/list response,
// shown as if they were in client.json.
func TestNewcomerLiveToolsHaveNoFilePosition(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	source, opts := fakeSource("raw", &stderr)
	set, err := LoadLive(t.Context(), source, opts)
	if err != nil {
		t.Fatalf("LoadLive: %v\nstderr:\n%s", err, stderr.String())
	}
	for _, tool := range set.Tools {
		if tool.Locate != nil {
			if p := tool.Locate("/inputSchema"); p.File != "" {
				t.Errorf("tool %s: Locate(/inputSchema) = %s:%d:%d, want no position for a live source", tool.Name, p.File, p.Line, p.Col)
			}
		}
	}
}
