package skills

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchDebounce is how long Watch waits after the last change before it
// calls onChange, so that a burst (an editor's save, a git checkout) is one
// reload.
const WatchDebounce = 200 * time.Millisecond

// Watch calls onChange (from one goroutine, never concurrently) after
// anything under dirs changes: a file written, created, removed or renamed,
// in any subdirectory. A directory that does not exist yet is fine: its
// nearest existing ancestor is watched until it appears, and its
// appearance counts as a change. A path may also be a file.
//
// fsnotify watches the local kernel, so Watch reads the local disk
// directly rather than through an FS. It runs until stop is called or ctx
// ends; stop waits for the watching goroutine and may be called again.
func Watch(ctx context.Context, dirs []string, onChange func()) (stop func() error, err error) {
	return watchWith(ctx, dirs, WatchDebounce, onChange)
}

func watchWith(ctx context.Context, dirs []string, delay time.Duration, onChange func()) (func() error, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch skills: %w", err)
	}
	dw := &dirWatcher{w: fw}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			_ = fw.Close()
			return nil, fmt.Errorf("watch %s: %w", d, err)
		}
		dw.targets = append(dw.targets, abs)
	}
	for _, t := range dw.targets {
		if err := dw.setup(t); err != nil {
			_ = fw.Close()
			return nil, err
		}
	}

	done := make(chan struct{})
	exited := make(chan struct{})
	var closeErr error
	go func() {
		defer close(exited)
		dw.loop(ctx, done, delay, onChange)
		closeErr = fw.Close()
	}()
	var once sync.Once
	return func() error {
		once.Do(func() { close(done) })
		<-exited
		return closeErr
	}, nil
}

type dirWatcher struct {
	w       *fsnotify.Watcher
	targets []string
}

func (dw *dirWatcher) loop(ctx context.Context, done <-chan struct{}, delay time.Duration, onChange func()) {
	var (
		timer  *time.Timer
		timerC <-chan time.Time
	)
	arm := func() {
		if timer == nil {
			timer = time.NewTimer(delay)
		} else {
			timer.Reset(delay)
		}
		timerC = timer.C
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case ev, ok := <-dw.w.Events:
			if !ok {
				return
			}
			if dw.handle(ev) {
				arm()
			}
		case err, ok := <-dw.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: re-add everything and assume a change.
				for _, t := range dw.targets {
					_ = dw.setup(t)
				}
				arm()
			}
		case <-timerC:
			timerC = nil
			onChange()
		}
	}
}

// handle updates the watches for ev and reports whether it is a change.
func (dw *dirWatcher) handle(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	name := filepath.Clean(ev.Name)
	changed := false
	for _, t := range dw.targets {
		switch {
		case name == t || within(t, name):
			// The target or a directory above it came or went.
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				_ = dw.setup(t)
				changed = true
			}
		case within(name, t):
			changed = true
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(name); err == nil && fi.IsDir() {
					_ = dw.addTree(name)
				}
			}
		}
	}
	return changed
}

// within reports whether p is strictly inside dir.
func within(p, dir string) bool {
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// setup watches target's tree when it is a directory, else the nearest
// existing directory at or above it (a file target's parent).
func (dw *dirWatcher) setup(target string) error {
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		return dw.addTree(target)
	}
	for p := filepath.Dir(target); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if err := dw.w.Add(p); err != nil {
				return fmt.Errorf("watch %s: %w", p, err)
			}
			return nil
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// addTree watches dir and every directory below it, following symlinks
// once each; dot directories and node_modules are skipped, as discovery
// skips them. Only a failure to watch dir itself is an error: a
// subdirectory that cannot be watched is left out.
func (dw *dirWatcher) addTree(dir string) error {
	visited := map[string]bool{}
	var add func(string) error
	add = func(d string) error {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || visited[real] {
			return nil
		}
		visited[real] = true
		if err := dw.w.Add(d); err != nil {
			if d == dir {
				return fmt.Errorf("watch %s: %w", d, err)
			}
			return nil
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil // gone or unreadable: its parent's events still come
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
				continue
			}
			p := filepath.Join(d, e.Name())
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				_ = add(p)
			}
		}
		return nil
	}
	return add(dir)
}
