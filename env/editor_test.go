package env_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

func TestEditorPrefersBuffers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []string
	e := &env.Editor{Env: env.NewLocal(dir), Read: func(_ context.Context, p string) (string, bool, error) {
		asked = append(asked, p)
		switch filepath.Base(p) {
		case "a.txt":
			return "unsaved edit", true, nil
		case "b.txt":
			return "", false, errors.New("editor went away")
		}
		return "", false, nil
	}}
	ctx := context.Background()
	for _, c := range []struct{ path, want string }{{"a.txt", "unsaved edit"}, {"b.txt", "b on disk"}} {
		got, err := e.ReadFile(ctx, c.path)
		if err != nil || string(got) != c.want {
			t.Fatalf("%s: %q %v", c.path, got, err)
		}
	}
	if _, err := e.ReadFile(ctx, "missing.txt"); env.CodeOf(err) != env.CodeNotFound {
		t.Fatalf("missing file: %v", err)
	}
	if asked[0] != filepath.Join(dir, "a.txt") {
		t.Fatalf("the editor was asked for %q, not an absolute path", asked[0])
	}
}

func TestEditorWritesThroughTheEditor(t *testing.T) {
	dir := t.TempDir()
	var got []string
	fail := false
	e := &env.Editor{Env: env.NewLocal(dir), Write: func(_ context.Context, p, text string) error {
		if fail {
			return errors.New("the user rejected the edit")
		}
		got = append(got, p+"="+text)
		return nil
	}}
	ctx := context.Background()
	if err := e.WriteFile(ctx, "sub/a.txt", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "sub", "a.txt") + "=new"; len(got) != 1 || got[0] != want {
		t.Fatalf("writes %q, want [%q]", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("the disk was written too: %v", err)
	}
	fail = true
	if err := e.WriteFile(ctx, "b.txt", []byte("x")); env.CodeOf(err) != env.CodeIO {
		t.Fatalf("a failed editor write: %v, want an io error", err)
	}
	plain := &env.Editor{Env: env.NewLocal(dir)}
	if err := plain.WriteFile(ctx, "c.txt", []byte("disk")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "c.txt")); err != nil || string(b) != "disk" {
		t.Fatalf("without Write the disk is written: %q %v", b, err)
	}
}
