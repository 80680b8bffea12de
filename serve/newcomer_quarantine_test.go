package serve

import (
	"strings"
	"testing"
)

// TestNewcomerQuarantineMessageNamesExposedTool (reproduction: an operator
// fronting server-filesystem with prefix fs_ called fs_read_multiple_files
// with {"paths": []} during a quarantine and read `Upstream "fs" changed
// tool "read_multiple_files"`, a name the client was never offered). The
// self-healing results of a quarantined upstream name tools as the client
// calls them, prefix included, and list only the tools the entry serves.
func TestNewcomerQuarantineMessageNamesExposedTool(t *testing.T) {
	t.Parallel()
	t.Run("changed", func(t *testing.T) {
		t.Parallel()
		s, files, _, r := gatewayWithState(t, quarantineConfig)
		cs := connectSDK(t, s, nil)
		files.set("search", "Searches.", strings.Replace(fakeSearch, `["fast","full"]`, `["fast"]`, 1))
		r.waitFor(t, "the quarantine", func(res ReloadResult) bool { return res.Result == ResultQuarantined })
		text, isErr := sdkCall(t, cs, "fs_search", map[string]any{"query": "q", "mode": "full"})
		if want := `Upstream "files" changed tool "fs_search" (input-enum-value-removed at /properties/mode/enum)`; !isErr || !strings.Contains(text, want) {
			t.Errorf("call: %v %q, want %q", isErr, text, want)
		}
	})
	t.Run("removed", func(t *testing.T) {
		t.Parallel()
		config := strings.Replace(quarantineConfig, "    prefix: fs_\n", "    prefix: fs_\n    tools: {exclude: [slow]}\n", 1)
		s, files, _, r := gatewayWithState(t, config+"gate: {upstream: refuse}\n")
		cs := connectSDK(t, s, nil)
		files.remove("read_file")
		files.set("read_text_file", "Reads a file.", fakeReadFile)
		r.waitFor(t, "the quarantine", func(res ReloadResult) bool { return res.Result == ResultQuarantined })
		text, isErr := sdkCall(t, cs, "fs_read_file", map[string]any{"path": "a"})
		if want := `Upstream "files" removed tool "fs_read_file" (tool-renamed) and no facade routes its calls; the tools it offers now: fs_read_text_file, fs_search.`; !isErr || !strings.Contains(text, want) {
			t.Errorf("call: %v %q, want %q", isErr, text, want)
		}
	})
}
