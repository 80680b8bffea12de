package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/recording"
	"github.com/mcpctl/mcpctl/toolset"
)

const freeConfig = `tools:
  - name: free
    inputSchema: {type: object}
    handler: {static: {text: ok}}
`

// Issue 8 item 12: --record wrote the values of members named with the
// plural or a digit form of a secret word.
func TestHardening12RecordRedactsWordParts(t *testing.T) {
	t.Parallel()
	s, dir := recordingServer(t, freeConfig)
	cs := sdkSession(t, s)
	args := map[string]any{"passwords": "pw-1", "tokens": []any{"tk-1"}, "secrets": "s-1", "cookies": "c-1",
		"refresh_tokens": "r-1", "apiKeys": map[string]any{"a": "a-1"}, "token2": "t-2", "max_tokens": 7, "query": "q-1"}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "free", Arguments: args}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, got := recordedFile(t, dir)
	for _, v := range []string{"pw-1", "tk-1", "s-1", "c-1", "r-1", "a-1", "t-2"} {
		if strings.Contains(got, v) {
			t.Errorf("the secret %q was recorded:\n%s", v, got)
		}
	}
	if !strings.Contains(got, `"max_tokens":7`) || !strings.Contains(got, `"query":"q-1"`) {
		t.Errorf("values that are not secrets were redacted:\n%s", got)
	}
}

// Issue 8 item 12: an existing record folder writable by its group or by
// others (where anyone could plant a file or a link) was used. It is
// refused with an error naming the folder.
func TestHardening12RecordRefusesWritableFolder(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o777, 0o770, 0o1777} {
		dir := filepath.Join(t.TempDir(), "rec")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, t.TempDir(), "mcpctl.serve.yaml", freeConfig)
		s, err := New(context.Background(), Options{ConfigPath: path, RecordDir: dir, Clock: clocktest.New(time.Unix(0, 0))})
		if err == nil {
			s.Close()
			t.Errorf("mode %04o: a writable record folder was accepted", mode)
			continue
		}
		var ie *toolset.InputError
		if !errors.Is(err, recording.ErrDirUnsafe) || !errors.As(err, &ie) || ie.Source != dir {
			t.Errorf("mode %04o: %v, want recording.ErrDirUnsafe located at %s", mode, err, dir)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("mode %04o: files were created in the refused folder", mode)
		}
	}
}
