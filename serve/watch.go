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
	files, filesCh, unsubscribe := s.subscribeFiles()
	defer unsubscribe()
	ws := &watchSet{w: w, dirs: map[string]bool{}, names: map[string]map[string]bool{}}
	ws.update(files, s)
	reload, stopped := s.reloadOn(ctx)
	defer stopped.Wait()

	// A change between the first load and the watches being set up would be
	// missed: check once now.
	if cfg, err := serveconfig.LoadConfigLimits(s.opts.ConfigPath, safefile.Limits{MaxSize: s.opts.MaxFileSize}); err != nil || cfg.Digest != s.live.Load().Config.Digest {
		reload <- struct{}{}
	}
	if s.hooks.watchReady != nil {
		s.hooks.watchReady()
	}

	return s.watchLoop(ctx, ws, filesCh, reload)
}

// subscribeFiles returns the files the live generation read and a
// channel that gets each newer list (the newest only), until unsubscribe.
func (s *Server) subscribeFiles() (files []string, filesCh <-chan []string, unsubscribe func()) {
	ch := make(chan []string, 1)
	s.watchedMu.Lock()
	defer s.watchedMu.Unlock()
	s.watched = func(f []string) {
		// Keep only the newest list.
		select {
		case <-ch:
		default:
		}
		ch <- f
	}
	return s.files, ch, func() {
		s.watchedMu.Lock()
		s.watched = nil
		s.watchedMu.Unlock()
	}
}

// reloadOn reloads once per receive on the returned channel (a buffer of
// one) until ctx ends; stopped is done then.
func (s *Server) reloadOn(ctx context.Context) (chan<- struct{}, *sync.WaitGroup) {
	reload := make(chan struct{}, 1)
	var stopped sync.WaitGroup
	stopped.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-reload:
				s.Reload(ctx, "watch")
			}
		}
	})
	return reload, &stopped
}

// watchLoop follows ws's events (and the newer file lists on filesCh)
// and asks for a reload once they have been quiet for the debounce
// period, until ctx ends.
func (s *Server) watchLoop(ctx context.Context, ws *watchSet, filesCh <-chan []string, reload chan<- struct{}) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case f := <-filesCh:
			ws.update(f, s)
		case ev, ok := <-ws.w.Events:
			if !ok {
				return nil
			}
			if ws.changed(ev, s) {
				timer.Reset(s.opts.Debounce)
			}
		case err, ok := <-ws.w.Errors:
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

// changed reports whether ev may change the config: an event on a
// watched folder (a created one is watched anew) or on a name that
// matters.
func (ws *watchSet) changed(ev fsnotify.Event, s *Server) bool {
	if ws.isFolder(ev) {
		if ev.Has(fsnotify.Create) {
			ws.rewatch(ev.Name, s)
		}
		return true
	}
	if ws.relevant(ev) {
		s.log.Debug("config change seen", "file", ev.Name, "op", ev.Op.String())
		return true
	}
	return false
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
