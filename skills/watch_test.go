package skills

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// waitFor bounds how long a test waits for an event that should come; it
// is a deadline against hanging, not a speed measurement.
const waitFor = 10 * time.Second

// quiet is how long a test watches for a callback that must not come.
const quiet = 400 * time.Millisecond

type watchProbe struct {
	t     *testing.T
	calls chan struct{}
	stop  func() error
}

func startWatch(t *testing.T, ctx context.Context, dirs ...string) *watchProbe {
	t.Helper()
	p := &watchProbe{t: t, calls: make(chan struct{}, 100)}
	stop, err := watchWith(ctx, dirs, 20*time.Millisecond, func() { p.calls <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	p.stop = stop
	t.Cleanup(func() { _ = stop() })
	return p
}

func (p *watchProbe) expectCall(what string) {
	p.t.Helper()
	select {
	case <-p.calls:
	case <-time.After(waitFor):
		p.t.Fatalf("no callback after %s", what)
	}
	p.drain()
}

func (p *watchProbe) expectNone(what string) {
	p.t.Helper()
	select {
	case <-p.calls:
		p.t.Fatalf("callback after %s", what)
	case <-time.After(quiet):
	}
}

// drain lets the debounce window pass and empties the channel, so that the
// next expectation sees only what comes after.
func (p *watchProbe) drain() {
	time.Sleep(100 * time.Millisecond)
	for {
		select {
		case <-p.calls:
		default:
			return
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWatchExistingTree(t *testing.T) {
	root := t.TempDir()
	skills := filepath.Join(root, "skills")
	write(t, filepath.Join(skills, "a", "SKILL.md"), skillMD("a", "A."))
	p := startWatch(t, context.Background(), skills)

	write(t, filepath.Join(skills, "a", "SKILL.md"), skillMD("a", "Changed."))
	p.expectCall("editing a skill in a subdirectory")

	// A new subdirectory is watched too: a file created inside it counts.
	if err := os.Mkdir(filepath.Join(skills, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.expectCall("creating a directory")
	write(t, filepath.Join(skills, "b", "SKILL.md"), skillMD("b", "B."))
	p.expectCall("creating a skill in a new directory")

	if err := os.RemoveAll(filepath.Join(skills, "a")); err != nil {
		t.Fatal(err)
	}
	p.expectCall("removing a skill")

	write(t, filepath.Join(root, "unrelated.txt"), "x")
	p.expectNone("writing outside the watched directory")
}

func TestWatchMissingDirectory(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "proj", ".pi", "skills")
	if err := os.MkdirAll(filepath.Join(root, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startWatch(t, context.Background(), target)

	write(t, filepath.Join(root, "proj", "main.go"), "package main")
	p.expectNone("writing a file beside the missing directory's parent")

	// .pi appears, then skills/ under it, then a skill in a subdirectory.
	if err := os.Mkdir(filepath.Join(root, "proj", ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.expectCall("creating an ancestor of the target")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.expectCall("creating the target")
	write(t, filepath.Join(target, "x", "SKILL.md"), skillMD("x", "X."))
	p.expectCall("creating a skill in the once-missing directory")

	// Removing the whole tree and creating it again keeps working.
	if err := os.RemoveAll(filepath.Join(root, "proj", ".pi")); err != nil {
		t.Fatal(err)
	}
	p.expectCall("removing the tree")
	write(t, filepath.Join(target, "y.md"), skillMD("y", "Y."))
	p.expectCall("recreating the tree")
}

func TestWatchFileTarget(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "one.md")
	write(t, file, skillMD("one", "One."))
	p := startWatch(t, context.Background(), file)
	write(t, filepath.Join(root, "other.md"), "x")
	p.expectNone("writing a sibling of a watched file")
	// Editors often save by rename; the parent directory sees it.
	tmp := filepath.Join(root, ".one.md.tmp")
	write(t, tmp, skillMD("one", "Changed."))
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	p.expectCall("replacing the watched file")
}

func TestWatchSymlinkLoop(t *testing.T) {
	root := t.TempDir()
	skills := filepath.Join(root, "skills")
	write(t, filepath.Join(skills, "a", "SKILL.md"), skillMD("a", "A."))
	if err := os.Symlink("..", filepath.Join(skills, "a", "loop")); err != nil {
		t.Fatal(err)
	}
	p := startWatch(t, context.Background(), skills)
	write(t, filepath.Join(skills, "a", "notes.md"), "x")
	p.expectCall("writing inside a tree with a symlink loop")
}

func TestWatchStop(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	p := startWatch(t, ctx, root)
	if err := p.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := p.stop(); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	write(t, filepath.Join(root, "a.md"), "x")
	p.expectNone("a change after stop")
	cancel()

	// Ending the context stops it too; stop afterwards still returns.
	ctx2, cancel2 := context.WithCancel(context.Background())
	p2 := startWatch(t, ctx2, root)
	cancel2()
	if err := p2.stop(); err != nil {
		t.Fatalf("stop after cancel: %v", err)
	}
}

func TestWatchPublicDebounce(t *testing.T) {
	root := t.TempDir()
	calls := make(chan struct{}, 10)
	stop, err := Watch(context.Background(), []string{root}, func() { calls <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stop() }()
	for i := range 5 {
		write(t, filepath.Join(root, "f.md"), string(rune('a'+i)))
	}
	select {
	case <-calls:
	case <-time.After(waitFor):
		t.Fatal("no callback")
	}
}
