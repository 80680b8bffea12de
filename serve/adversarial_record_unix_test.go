//go:build unix

package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/recording"
)

// A record folder owned by another user passed the check (its mode,
// 0755, lets only its owner write): its owner can remove, rename and
// replace the record files and plant links where the server writes, as
// with a group-writable folder. Reproduction (as root):
//
//	mkdir rec && chown nobody rec && mcpctl serve --record rec c.yaml
//
// recorded into rec. A folder owned by neither the server's user nor root
// is now refused (recording.ErrDirUnsafe).
func TestAdversarialRecordDirOwnedByAnother(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a folder to another user")
	}
	dir := filepath.Join(t.TempDir(), "rec")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Skipf("cannot chown: %v", err)
	}
	path := writeFile(t, t.TempDir(), "mcpctl.serve.yaml", freeConfig)
	s, err := New(context.Background(), Options{ConfigPath: path, RecordDir: dir, Clock: clocktest.New(time.Unix(0, 0))})
	if err == nil {
		s.Close()
		t.Fatal("a record folder owned by another user was accepted")
	}
	if !errors.Is(err, recording.ErrDirUnsafe) {
		t.Errorf("%v, want recording.ErrDirUnsafe", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files were created in the refused folder")
	}
}
