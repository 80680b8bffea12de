package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/serveconfig"
)

// Watch watches the config and every file it includes and reloads after
// the debounce period of quiet (docs/serve.md#generations-and-the-reload-pipeline step 1), until ctx ends.
//
// It watches folders, not files, so every way a file gets replaced is seen:
// in-place writes, an editor's write-to-temp-and-rename, delete and
// re-create, and the Kubernetes ConfigMap pattern (the config is a symlink
// through "..data", a symlink swapped atomically to a new timestamped
// folder; every "..*" entry of a watched folder counts). The folders of
// symlink targets are watched too. A burst of events gives one reload after
// the last one; a change during a reload gives another reload after it, so
// the final state always reflects the last write.
func (s *Server) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Close()

	filesCh := make(chan []string, 1)
	s.watchedMu.Lock()
	files := s.files
	s.watched = func(f []string) {
		// Keep only the newest list.
		select {
		case <-filesCh:
		default:
		}
		filesCh <- f
	}
	s.watchedMu.Unlock()
	defer func() {
		s.watchedMu.Lock()
		s.watched = nil
		s.watchedMu.Unlock()
	}()

	ws := &watchSet{w: w, dirs: map[string]bool{}, names: map[string]map[string]bool{}}
	ws.update(files, s)

	reload := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-reload:
				s.Reload(ctx, "watch")
			}
		}
	}()
	defer wg.Wait()

	// A change between the first load and the watches being set up would be
	// missed: check once now.
	if cfg, err := serveconfig.LoadConfigLimits(s.opts.ConfigPath, safefile.Limits{MaxSize: s.opts.MaxFileSize}); err != nil || cfg.Digest != s.live.Load().Config.Digest {
		reload <- struct{}{}
	}
	if s.hooks.watchReady != nil {
		s.hooks.watchReady()
	}

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case f := <-filesCh:
			ws.update(f, s)
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ws.isFolder(ev) {
				if ev.Has(fsnotify.Create) {
					ws.rewatch(ev.Name, s)
				}
				timer.Reset(s.opts.Debounce)
			} else if ws.relevant(ev) {
				s.log.Debug("config change seen", "file", ev.Name, "op", ev.Op.String())
				timer.Reset(s.opts.Debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// An overflow loses events: reload to be safe.
			s.log.Warn("file watcher error; reloading to be safe", "error", err)
			timer.Reset(s.opts.Debounce)
		case <-timer.C:
			select {
			case reload <- struct{}{}:
			default: // one is already pending; it will read the newest files
			}
		}
	}
}

// watchSet is the folders being watched and the names that matter in each.
type watchSet struct {
	w     *fsnotify.Watcher
	dirs  map[string]bool
	names map[string]map[string]bool
}

// update watches the folders of files (and of their symlink targets), and
// the parents of those folders, so that a folder moved away and created
// anew is seen (a watch follows the folder it was set on, wherever it
// goes).
func (ws *watchSet) update(files []string, s *Server) {
	names := map[string]map[string]bool{}
	addName := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return
		}
		dir, base := filepath.Dir(abs), filepath.Base(abs)
		if names[dir] == nil {
			names[dir] = map[string]bool{}
		}
		names[dir][base] = true
	}
	for _, f := range files {
		addName(f)
		if real, err := filepath.EvalSymlinks(f); err == nil {
			addName(real)
		}
	}
	want := map[string]bool{}
	for dir := range names {
		want[dir] = true
		want[filepath.Dir(dir)] = true
	}
	for dir := range want {
		if !ws.dirs[dir] {
			if err := ws.w.Add(dir); err != nil {
				s.log.Warn("cannot watch folder", "dir", dir, "error", err)
				continue
			}
			ws.dirs[dir] = true
		}
	}
	for dir := range ws.dirs {
		if !want[dir] {
			_ = ws.w.Remove(dir)
			delete(ws.dirs, dir)
		}
	}
	ws.names = names
}

// isFolder reports whether ev is about a config folder itself (created,
// removed or moved, seen from its parent or by its own watch).
func (ws *watchSet) isFolder(ev fsnotify.Event) bool {
	return ws.names[ev.Name] != nil && ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0
}

// rewatch sets the watch of the config folder dir, just created, afresh:
// the watch of a folder moved away followed it, and the new folder at its
// path is not watched until then.
func (ws *watchSet) rewatch(dir string, s *Server) {
	_ = ws.w.Remove(dir)
	if err := ws.w.Add(dir); err != nil {
		delete(ws.dirs, dir)
		s.log.Warn("cannot watch the new config folder", "dir", dir, "error", err)
		return
	}
	ws.dirs[dir] = true
	s.log.Info("the config folder was replaced; watching the new one", "dir", dir)
}

// relevant reports whether an event may change what the config reads.
func (ws *watchSet) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	dir, base := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	if strings.HasPrefix(base, "..") {
		return true // ConfigMap: ..data, ..data_tmp, ..2024_…
	}
	return ws.names[dir][base]
}
